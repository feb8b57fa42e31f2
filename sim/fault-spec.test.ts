import { describe, expect, it } from 'vitest';
import { parseFaultSpec, splitModelFault } from './fault-spec.js';
import { toJsonFromSchema } from './json-from-schema.js';

describe('parseFaultSpec', () => {
  it('reads name;key=value params, numbers as numbers', () => {
    expect(parseFaultSpec('cut_mid_stream;after=2;then=end')).toEqual({
      name: 'cut_mid_stream',
      params: { after: 2, then: 'end' },
    });
    expect(parseFaultSpec('error_503')).toEqual({ name: 'error_503' });
  });

  it('returns undefined for an unknown fault', () => {
    expect(parseFaultSpec('meltdown;after=1')).toBeUndefined();
  });
});

describe('splitModelFault', () => {
  it('splits a known fault suffix off the served name', () => {
    expect(splitModelFault('qwen3-8b@rate_limit;seconds=2')).toEqual({
      model: 'qwen3-8b',
      fault: { name: 'rate_limit', params: { seconds: 2 } },
    });
  });

  it('keeps a name whose suffix is no fault', () => {
    expect(splitModelFault('org/model@v2')).toEqual({ model: 'org/model@v2' });
  });
});

describe('toJsonFromSchema', () => {
  it('fills required properties by type, enum and nesting', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        level: { enum: ['low', 'high'] },
        nested: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        skipped: { type: 'number' },
      },
      required: ['name', 'tags', 'level', 'nested'],
    };
    expect(toJsonFromSchema(schema)).toEqual({ name: 'x', tags: ['x'], level: 'low', nested: { ok: true } });
  });
});

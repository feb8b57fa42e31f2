import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hashKey } from '../policy/api-keys.js';
import { parseRoutingTable } from './load-routing-table.js';
import { toKeyChanges, toReloadProblems } from './reload-policy.js';

const tier = { group: ['a'] };
const base = {
  deployments: [{ id: 'a', model: 'm', base_url: 'http://127.0.0.1:1/v1', context_window: 1000 }],
  tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
};
const table = (extra: Record<string, unknown>) =>
  parseRoutingTable({ text: stringify({ ...base, ...extra }), source: 't.yaml', now: 0 }).table;
const key = (name: string, secret: string, rpm?: number) => ({
  name,
  sha256: hashKey(secret),
  ...(rpm === undefined ? {} : { rpm }),
});

describe('reload policy', () => {
  it('refuses a reload that would open a keyed service, unless the new table says open_mode', () => {
    const keyed = table({ api_keys: [key('a', 's')] });
    const problems = toReloadProblems(keyed, table({}));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('api_keys');
    expect(problems[0]?.message).toContain('open_mode: true');
    expect(toReloadProblems(keyed, table({ open_mode: true }))).toEqual([]);
    expect(toReloadProblems(table({}), table({}))).toEqual([]);
    expect(toReloadProblems(keyed, table({ api_keys: [key('b', 't')] }))).toEqual([]);
  });

  it('names the keys a reload adds, removes and changes, and nothing else', () => {
    const changes = toKeyChanges(
      table({ api_keys: [key('kept', 's1'), key('gone', 's2'), key('tuned', 's3', 10)] }),
      table({ api_keys: [key('kept', 's1'), key('tuned', 's3', 20), key('new', 's4')] }),
    );
    expect(changes).toEqual({ added: ['new'], removed: ['gone'], changed: ['tuned'] });
    expect(JSON.stringify(changes)).not.toContain(hashKey('s1'));
  });
});

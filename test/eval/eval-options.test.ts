import { describe, expect, it } from 'vitest';
import { DEFAULT_CONCURRENCY, EvalUsageError, parseEvalOptions } from '../../eval/eval-options.js';
import { toEvalVariants } from '../../eval/eval-variants.js';

const DEFAULTS = { file: 'eval/prompts.jsonl', table: 'routing-tables/default.yaml' };
const parse = (...argv: string[]) => parseEvalOptions(argv, DEFAULTS);

describe('parseEvalOptions', () => {
  it('defaults to local mode on eval/prompts.jsonl with the default table', () => {
    expect(parse()).toMatchObject({
      file: 'eval/prompts.jsonl',
      modes: ['local'],
      tables: ['routing-tables/default.yaml'],
      models: [],
      concurrency: DEFAULT_CONCURRENCY,
      minAccuracy: undefined,
      quiet: false,
    });
  });

  it('reads the file, a comparison, repeated tables and floors', () => {
    const options = parse(
      'dev.jsonl',
      '--compare',
      'heuristic,learned, local',
      '--table',
      'a.yaml',
      '--table',
      'b.yaml',
      '--min-accuracy',
      '0.6',
      '--max-under-routing',
      '0.15',
      '--json',
      'o.json',
    );
    expect(options).toMatchObject({
      file: 'dev.jsonl',
      modes: ['heuristic', 'learned', 'local'],
      tables: ['a.yaml', 'b.yaml'],
      minAccuracy: 0.6,
      maxUnderRouting: 0.15,
      json: 'o.json',
    });
  });

  it.each([
    [['--mode', 'fast'], /unknown mode "fast"/],
    [['--mode', 'local', '--compare', 'heuristic'], /not both/],
    [['--min-accuracy', '80'], /fraction from 0 to 1/],
    [['--max-under-routing', ''], /fraction/],
    [['--concurrency', '0'], /at least 1/],
    [['--worst', '2.5'], /whole number/],
    [['a.jsonl', 'b.jsonl'], /one input file/],
    [['--colour'], /Unknown option/],
  ])('rejects %j', (argv, message) => {
    expect(() => parse(...argv)).toThrow(EvalUsageError);
    expect(() => parse(...argv)).toThrow(message);
  });
});

describe('toEvalVariants', () => {
  it('labels each mode alone when one table and model are used', () => {
    const variants = toEvalVariants({ modes: ['heuristic', 'local'], tables: ['t.yaml'], models: [] });
    expect(variants).toEqual([
      { label: 'heuristic', mode: 'heuristic', table: 't.yaml', model: undefined },
      { label: 'local', mode: 'local', table: 't.yaml', model: undefined },
    ]);
  });

  it('names the table or model file in the label when those are compared; heuristic runs once per table', () => {
    const byModel = toEvalVariants({
      modes: ['heuristic', 'local'],
      tables: ['t.yaml'],
      models: ['x/a.json', 'y/b.json'],
    });
    expect(byModel.map((variant) => variant.label)).toEqual([
      'heuristic',
      'local · a.json',
      'local · b.json',
    ]);
    const byTable = toEvalVariants({ modes: ['local'], tables: ['x/t.yaml', 'y/t.yaml'], models: [] });
    expect(byTable.map((variant) => variant.label)).toEqual(['local · x/t.yaml', 'local · y/t.yaml']);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ARCHITECTURE_TERMS } from '../../src/classify/heuristic-signals-scope.js';
import { PATTERN_SET_REGEXES, PATTERN_SIGNALS } from '../../src/classify/heuristics.js';
import { createPatternSet } from '../../src/classify/pattern-set.js';
import { checkRegexSafety } from './regex-safety.js';

/**
 * Every regex that reads client or upstream text, checked for catastrophic backtracking (see
 * docs/regex-audit.md). Heuristic regexes read a window of at most about 1,800 characters (see
 * classifier-hostile-input.test.ts), so quadratic is accepted there (under 3.3 million steps) and
 * nothing worse; every other regex must be linear.
 */
const WINDOW_DEGREE = 2;
const ROOT = join(import.meta.dirname, '..', '..');
/** Folders whose code runs on request bodies, headers or upstream replies. */
const REQUEST_PATH = [
  'src/classify',
  'src/upstream',
  'src/gateway',
  'src/routing',
  'src/policy',
  'src/tokenizers',
  'src/patterns',
  'src/http',
  'src/shared',
];
/** Files whose regexes run only on the classifier's window. */
const WINDOW_FILES = /^src\/classify\/(heuristic-signals-[a-z]+|numbered-requirements)\.ts$/;
/** Literals allowed above degree 1 elsewhere, with the reason their input cannot make them slow. */
const REVIEWED: Readonly<Record<string, string>> = {
  'src/policy/api-keys.ts /^Bearer\\s+(.+)$/i':
    'an Authorization header: `(.+)$` fails only on a line terminator, which Node rejects in headers',
};
/** Files besides the signal tables that build regexes at run time; the tests collect what they build. */
const DYNAMIC_REGEX_FILES = ['src/classify/heuristic-signal.ts', 'src/classify/pattern-set.ts'];
/**
 * Files that compile the routing table's `classifier.rules`: their patterns are checked to be
 * linear when the table loads (config/classifier-rule-schema.ts), their keywords by keyword-regex.test.ts.
 */
const TABLE_REGEX_FILES = ['src/classify/table-rules.ts'];

function withoutStateFlags(regex: RegExp): string {
  return regex.flags.replace(/[gy]/g, '');
}

function* sourceFiles(folder: string): Generator<string> {
  for (const name of readdirSync(join(ROOT, folder))) {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) yield path;
  }
}

/** Every regex literal in a file, as `/source/flags`. */
function toRegexLiterals(path: string): string[] {
  const file = ts.createSourceFile(
    path,
    readFileSync(join(ROOT, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const literals: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isRegularExpressionLiteral(node)) literals.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return literals;
}

describe('regexes over client and upstream text', () => {
  it('no signal pattern backtracks exponentially or worse than quadratically', () => {
    const patterns = [
      ...PATTERN_SIGNALS.flatMap(({ name, patterns }) =>
        Object.entries(patterns).map(([language, regex]) => ({ where: `${name}.${language}`, regex })),
      ),
      ...ARCHITECTURE_TERMS.map((regex, index) => ({ where: `architecture term ${index}`, regex })),
    ];
    expect(patterns.length).toBeGreaterThan(200);
    const unsafe = patterns.flatMap(({ where, regex }) => {
      const result = checkRegexSafety(regex.source, regex.flags, { maxDegree: WINDOW_DEGREE });
      return result.safe ? [] : [`${where} /${regex.source}/: ${result.reason}`];
    });
    expect(unsafe).toEqual([]);
  });

  it('no regex a heuristic scan runs is worse than quadratic, though scans try it at every position', () => {
    const regexes = [
      ...PATTERN_SET_REGEXES.map(({ regex }) => regex),
      ...createPatternSet(ARCHITECTURE_TERMS).regexes,
    ];
    expect(regexes.length).toBeGreaterThan(1000);
    const unsafe = regexes.flatMap((regex) => {
      const options = { maxDegree: WINDOW_DEGREE, everyPosition: true };
      const result = checkRegexSafety(regex.source, withoutStateFlags(regex), options);
      return result.safe ? [] : [`/${regex.source}/${regex.flags}: ${result.reason}`];
    });
    expect(unsafe).toEqual([]);
  }, 60_000);

  it('every regex literal in the request path is linear, except window-bounded and reviewed ones', () => {
    const found: string[] = [];
    const unsafe = REQUEST_PATH.flatMap((folder) => [...sourceFiles(folder)]).flatMap((path) =>
      toRegexLiterals(path).flatMap((literal) => {
        found.push(literal);
        const slash = literal.lastIndexOf('/');
        const flags = literal.slice(slash + 1).replace(/[gy]/g, '');
        const window = WINDOW_FILES.test(path) || REVIEWED[`${path} ${literal}`] !== undefined;
        const result = checkRegexSafety(literal.slice(1, slash), flags, {
          maxDegree: window ? WINDOW_DEGREE : 1,
        });
        return result.safe ? [] : [`${path} ${literal}: ${result.reason}`];
      }),
    );
    expect(found.length).toBeGreaterThan(40);
    expect(unsafe).toEqual([]);
  }, 60_000);

  it('builds regexes at run time only in the files whose regexes the tests above collect', () => {
    const dynamic = REQUEST_PATH.flatMap((folder) => [...sourceFiles(folder)]).filter((path) =>
      /new RegExp\(/.test(readFileSync(join(ROOT, path), 'utf8')),
    );
    // signal tables: PATTERN_SIGNALS
    const collected = (path: string): boolean =>
      DYNAMIC_REGEX_FILES.includes(path) || TABLE_REGEX_FILES.includes(path) || WINDOW_FILES.test(path);
    expect(dynamic.filter((path) => !collected(path))).toEqual([]);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync('README.md', 'utf8');
const evalReadme = readFileSync('eval/README.md', 'utf8');
/** The pages of docs/, but the dated logs, whose commands are kept as they were run then. */
const DATED_LOGS = new Set(['bench-history.md', 'classifier-experiments.md']);
const docPages = readdirSync('docs')
  .filter((name) => name.endsWith('.md') && !DATED_LOGS.has(name))
  .map((name) => readFileSync(`docs/${name}`, 'utf8'));
const scripts = Object.keys(
  (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts,
);

/** The shell blocks of the README: what a reader copies into a terminal. */
function shellBlocks(text: string): string[] {
  return [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** Every command line of the shell blocks, comments cut. */
const commandLines = [readme, evalReadme, ...docPages]
  .flatMap(shellBlocks)
  .flatMap((block) => block.split('\n'))
  .map((line) => line.replace(/\s+#.*$/, '').trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** Words that name a file or folder of this repository (relative, with a slash, not a URL). */
function repoPaths(line: string): string[] {
  return line
    .split(/[\s=:'"]+/)
    .filter((word) => /^[\w.-]+\/[\w./-]*\w$/.test(word) && /\.(jsonl|yaml|yml|ts|json|md|sh)$/.test(word))
    .filter((word) => !word.startsWith('../') && !/^(artifacts|\.scratch)\//.test(word))
    .filter((word) => !/^my-|\/my-/.test(word));
}

describe('the shell commands of README.md, eval/README.md and docs/', () => {
  it('has shell blocks to check', () => {
    expect(commandLines.length).toBeGreaterThan(10);
  });

  it('names only npm scripts that package.json defines', () => {
    const named = commandLines.flatMap((line) =>
      [...line.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1] ?? ''),
    );
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it('names only files that a fresh clone has, outside ../shared/datasets', () => {
    const missing = commandLines.flatMap(repoPaths).filter((path) => !existsSync(path));
    expect(missing).toEqual([]);
  });

  it('explains ../shared/datasets wherever a command needs it', () => {
    const needsDatasets = commandLines.some((line) => line.includes('../shared/datasets'));
    if (needsDatasets) expect(readme).toMatch(/\*\*The public datasets\.\*\*[^\n]*\n[^\n]*not in this\s/);
  });
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The pages a reader follows links between: the README and every page of docs/. */
const pages = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a page outside its fenced code blocks (a `#` there is a comment, a `](` is code). */
function prose(path: string): string {
  return readFileSync(path, 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(path).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link of a page: `[text](target)`, web and mail addresses left out. */
function relativeLinks(path: string): string[] {
  return [...prose(path).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target));
}

/** The links of a page whose file or heading does not exist. */
function brokenLinks(path: string): string[] {
  return relativeLinks(path).filter((target) => {
    const [file = '', anchor] = target.split('#');
    const resolved = file === '' ? path : normalize(join(dirname(path), file));
    if (!existsSync(resolved)) return true;
    return anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor);
  });
}

describe('the links of README.md and docs/', () => {
  it('has links to check', () => {
    expect(pages.flatMap(relativeLinks).length).toBeGreaterThan(50);
  });

  it('reach files that exist and headings those files have', () => {
    const broken = pages.flatMap((path) => brokenLinks(path).map((target) => `${path}: ${target}`));
    expect(broken).toEqual([]);
  });

  it('list every page of docs/ in docs/README.md', () => {
    const listed = new Set(relativeLinks('docs/README.md'));
    const pagesOfDocs = pages.filter((path) => path.startsWith('docs/') && path !== 'docs/README.md');
    expect(pagesOfDocs.filter((path) => !listed.has(path.slice('docs/'.length)))).toEqual([]);
  });
});

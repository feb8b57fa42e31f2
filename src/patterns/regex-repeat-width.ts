import { RegExpParser, visitRegExpAST, type AST } from '@eslint-community/regexpp';

/**
 * The most times one element of a regex can repeat from a single start: the product of the maxima of
 * the counted repeats (`{n,m}`, `?`) around it, unbounded ones (`*`, `+`, `{n,}`) left out (the
 * backtracking check, regex-safety.ts, decides about those). A linear regex still reads about this
 * many characters from every start where it gets that far and backtracks over them:
 * `prove.{0,200}theorem` took 21 ms over 64 KiB of `prove prove ...`, `a{0,1000}b` 0.55 s over 64 KiB
 * of `a`. Throws the parser's error for an invalid regex.
 */
export function toLargestRepeat(source: string, flags: string): number {
  const parser = new RegExpParser({ ecmaVersion: 2025 });
  const parsedFlags = parser.parseFlags(flags);
  const pattern = parser.parsePattern(source, 0, source.length, {
    unicode: parsedFlags.unicode,
    unicodeSets: parsedFlags.unicodeSets,
  });
  let largest = 1;
  visitRegExpAST(pattern, {
    onQuantifierEnter(node) {
      largest = Math.max(largest, toNestedProduct(node));
    },
  });
  return largest;
}

/** The product of the finite maxima of a quantifier and the quantifiers it sits in. */
function toNestedProduct(node: AST.Quantifier): number {
  let product = 1;
  for (let current: AST.Node | null = node; current !== null; current = current.parent) {
    if (current.type === 'Quantifier' && Number.isFinite(current.max)) product *= current.max;
  }
  return product;
}

import type { DeploymentConfig } from '../config/table-part-schemas.js';

/** Tokens of one attempt or request, as charged. */
export interface ChargedTokens {
  promptTokens: number;
  completionTokens: number;
}

/**
 * The cost of tokens on a deployment at its `price` (per million input and output tokens), rounded
 * to a billionth of the unit so sums of many small requests stay exact in a numeric column;
 * undefined when the deployment has no price (unknown, not free).
 */
export function toCost(
  deployment: Pick<DeploymentConfig, 'price'>,
  tokens: ChargedTokens,
): number | undefined {
  const { price } = deployment;
  if (price === undefined) return undefined;
  const cost =
    (tokens.promptTokens * price.input_per_million + tokens.completionTokens * price.output_per_million) /
    1_000_000;
  return Math.round(cost * 1e9) / 1e9;
}

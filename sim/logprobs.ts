/** One entry of `logprobs.content` in the OpenAI chat shape. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

/** Alternatives offered in `top_logprobs` after the chosen token. */
const ALTERNATIVES = [' a', ' the', ' and', ' of', ' to', ' in', ' is', ' it', ' for', ' on'] as const;

/**
 * A plausible, deterministic log-probability for the token at `position`: the chosen token is the
 * most likely (between -0.05 and -0.41), alternatives are each 1.5 nats less likely than the previous.
 */
export function toTokenLogprob(token: string, position: number, topCount: number): TokenLogprob {
  const logprob = -(0.05 + (position % 7) * 0.06);
  const top_logprobs: TokenLogprob['top_logprobs'] = [];
  for (let rank = 0; rank < topCount; rank += 1) {
    const candidate = rank === 0 ? token : (ALTERNATIVES[(position + rank) % ALTERNATIVES.length] as string);
    top_logprobs.push({ token: candidate, logprob: logprob - rank * 1.5, bytes: toBytes(candidate) });
  }
  return { token, logprob, bytes: toBytes(token), top_logprobs };
}

function toBytes(text: string): number[] {
  return Array.from(Buffer.from(text, 'utf8'));
}

import type { Responder, ResponderRequest } from './types.js';

const TIER_NAMES = ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'] as const;

export type SimTier = (typeof TIER_NAMES)[number];

/** FNV-1a of a string, so a prompt's simulated verdict is the same on every run and every request. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1)
    hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  return hash >>> 0;
}

export interface SimulatedVerdictOptions {
  /** Share of prompts answered with the gold tier, 0..1. @default 0.87 (the design's Qwen3-8B figure) */
  accuracy: number;
  /** Changes which prompts are answered wrong. @default 1 */
  seed: number;
}

/**
 * A classifier model's answer for a prompt whose gold tier is `gold`: the gold tier for a fixed share
 * `accuracy` of prompts (chosen by a hash of `key` and the seed), else one tier up or down (SIMPLE
 * only up, EXPERT only down). Deterministic: the same prompt always gets the same answer.
 */
export function toSimulatedVerdict(gold: SimTier, key: string, options: SimulatedVerdictOptions): SimTier {
  const draw = hashText(`${options.seed}:${key}`);
  if ((draw % 100_000) / 100_000 < options.accuracy) return gold;
  const rank = TIER_NAMES.indexOf(gold);
  const up =
    rank === 0 || (rank < TIER_NAMES.length - 1 && hashText(`${key}:${options.seed}:side`) % 2 === 0);
  return TIER_NAMES[rank + (up ? 1 : -1)] ?? gold;
}

/** The `last_user_message` of a classifier request (the LLM stage sends the request as JSON). */
function toLastUserMessage(request: ResponderRequest): string | undefined {
  const messages = (request.body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return undefined;
  const user = (messages as { role?: unknown; content?: unknown }[]).findLast(
    (message) => message.role === 'user',
  );
  if (typeof user?.content !== 'string') return undefined;
  try {
    const parsed = JSON.parse(user.content) as { last_user_message?: unknown };
    return typeof parsed.last_user_message === 'string' ? parsed.last_user_message : undefined;
  } catch {
    return undefined;
  }
}

export interface ClassifierResponderOptions extends SimulatedVerdictOptions {
  /** Gold tier of a prompt, by the text the classifier stage sends (`last_user_message`). */
  labelOf: (text: string) => SimTier | undefined;
}

/**
 * A simulated classifier model (Qwen3-8B's stand-in): answers each classifier request with a verdict
 * JSON, the gold tier at the given accuracy, else one tier off. A prompt it has no label for gets
 * MODERATE; a request that is not a classifier request keeps the default reply.
 */
export function createClassifierResponder(options: ClassifierResponderOptions): Responder {
  return (request) => {
    const text = toLastUserMessage(request);
    if (text === undefined) return undefined;
    const gold = options.labelOf(text);
    const complexity = gold === undefined ? 'MODERATE' : toSimulatedVerdict(gold, text, options);
    const reason = gold === undefined ? 'unlabeled prompt' : 'simulated verdict';
    return { content: JSON.stringify({ complexity, reason, needs_vision: false }) };
  };
}

import type { ChatMessage } from '../shared/chat.js';
import type { Tier } from '../shared/tier.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import type { Span } from '../shared/tracing.js';

/** Which stage decided a request's complexity. */
export type ClassifierCause = 'heuristic' | 'learned' | 'llm' | 'cache' | 'fallback';

/** How much of the cascade runs: `local` = heuristics + learned model; `cascade` asks the LLM when unsure. */
export type ClassifierMode = 'heuristic' | 'learned' | 'local' | 'cascade' | 'llm';

export type TierProbabilities = Record<Tier, number>;

/** What the classifier reads from a chat request. */
export interface ClassifyRequest {
  messages: readonly ChatMessage[];
  tools?: readonly unknown[];
  /**
   * Whose classification cache entries this request may read and write: the API key's SHA-256, never
   * the key. Absent = the one scope of an open-mode table.
   */
  cacheScope?: string;
}

export interface StageLatencies {
  /** Milliseconds spent in each stage that ran. */
  heuristic?: number;
  learned?: number;
  llm?: number;
}

export interface ClassificationDecision {
  tier: Tier;
  cause: ClassifierCause;
  /** For cause `cache`: the stage that made the decision the cache kept. */
  cachedFrom?: Exclude<ClassifierCause, 'cache'>;
  /** Probability of the chosen tier, 0..1 (1 for an LLM or cache answer that had no probabilities). */
  confidence: number;
  probabilities?: TierProbabilities;
  /** Names of the heuristic signals that fired, e.g. `code_block`, `greeting_ko`. */
  signals: readonly string[];
  /** True when the request carries image parts (or the LLM said so). */
  needsVision: boolean;
  stageLatencyMs: StageLatencies;
  llmCalled: boolean;
  /** Tokens the classifier LLM call cost (0 when it was not called); counted against the API key. */
  llmTokens?: number;
  /** Short human reason (the LLM's, or the deciding rule's). */
  reason?: string;
}

export interface Classifier {
  /** `span`: the request's classification span; each stage that runs gets a child span. */
  classify(request: ClassifyRequest, signal?: CancelSignal, span?: Span): Promise<ClassificationDecision>;
}

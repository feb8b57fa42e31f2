import type { Random } from '../src/shared/clock.js';
import { toFaultNumber, type FaultSpec } from './fault-spec.js';
import type { StreamTiming } from './stream-runner.js';
import type { SimLatency } from './types.js';

/** First-token delay of the `slow_first_token` fault, in milliseconds. @default 5000 */
const DEFAULT_SLOW_FIRST_TOKEN_MS = 5000;

export interface TimingInput {
  latency: SimLatency;
  fault: FaultSpec | undefined;
  /** A responder's `delayMs`, added to the first-token delay. */
  extraDelayMs: number;
  random: Random;
}

/**
 * First-token delay = ttftMs (or the `slow_first_token` fault's `ms`, which replaces it) + jitter
 * uniform in [0, jitterMs) + the responder's delay. Token interval = 1000 / tokensPerSecond.
 */
export function toStreamTiming(input: TimingInput): StreamTiming {
  const { latency, fault } = input;
  const base =
    fault?.name === 'slow_first_token'
      ? toFaultNumber(fault, 'ms', DEFAULT_SLOW_FIRST_TOKEN_MS)
      : (latency.ttftMs ?? 0);
  const jitterMs = latency.jitterMs ?? 0;
  const jitter = jitterMs > 0 ? input.random() * jitterMs : 0;
  const tokensPerSecond = latency.tokensPerSecond ?? 0;
  return {
    firstTokenDelayMs: Math.max(0, base + jitter + input.extraDelayMs),
    tokenIntervalMs: tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0,
  };
}

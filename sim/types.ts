import type { IncomingHttpHeaders } from 'node:http';
import type { Clock, Random, Sleep } from '../src/shared/clock.js';
import type { FaultSpec } from './fault-spec.js';

export type { FaultName, FaultSpec } from './fault-spec.js';

export interface SimLatency {
  /** Delay before the first content token, in milliseconds. @default 0 */
  ttftMs?: number;
  /** Decode speed in tokens per second; 0 or undefined means no pacing (all tokens at once). */
  tokensPerSecond?: number;
  /** Extra random delay added to ttftMs, uniform in [0, jitterMs), in milliseconds. @default 0 */
  jitterMs?: number;
}

/** What a scripted responder wants the backend to answer; unset fields keep the default behaviour. */
export interface ResponderReply {
  content?: string;
  /**
   * Streams the tokens of `content` this many times over, each run framed once: a long answer that
   * costs the simulator almost nothing to make (back-pressure tests stream tens of MB). @default 1
   */
  repeat?: number;
  toolCalls?: { name: string; arguments: string }[];
  /** Extra delay before the first token, in milliseconds, on top of the latency settings. */
  delayMs?: number;
  /** An HTTP status of 400 or more answers with a vLLM-shaped error instead of a completion. */
  status?: number;
  errorMessage?: string;
  finishReason?: string;
  /**
   * Prompt tokens the usage reports instead of the simulator's estimate, as a multimodal server
   * reports a video or audio part's tokens that no text estimate sees.
   */
  promptTokens?: number;
}

export interface ResponderRequest {
  body: unknown;
  headers: IncomingHttpHeaders;
}

/** Scripts replies per request (e.g. a classifier model); returning undefined keeps the default reply. */
export type Responder = (request: ResponderRequest) => ResponderReply | undefined;

/**
 * Where reasoning goes when a request sets `chat_template_kwargs.enable_thinking: true`:
 * `inline` wraps it in `<think>...</think>` inside content (no reasoning parser), `reasoning_content`
 * streams it in `delta.reasoning_content` (vLLM with `--reasoning-parser`), `none` omits it.
 */
export type ReasoningMode = 'inline' | 'reasoning_content' | 'none';

export interface SimBackendOptions {
  id: string;
  /** Served model names; the first is the default shown first in /v1/models. */
  models: string[];
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (an ephemeral port) */
  port?: number;
  latency?: SimLatency;
  /**
   * Context window in tokens. Prompt tokens are estimated as ceil(chars / 4) + 4 per message.
   * @default 32768
   */
  contextWindow?: number;
  /**
   * Fault applied to every request that does not select its own by header or model suffix. The
   * server-down faults (`error_503`, `reset_before_headers`, `no_response`) also strike GET /health
   * and /v1/models, like a vLLM whose engine died; the others leave those routes answering 200.
   */
  fault?: FaultSpec;
  /** Source of jitter and response ids. @default Math.random */
  random?: Random;
  /** Source of `created` timestamps. @default Date.now */
  clock?: Clock;
  /** Waits used for latency and faults; must reject when the signal aborts. @default setTimeout-based */
  sleep?: Sleep;
  responder?: Responder;
  /** @default 'reasoning_content' */
  reasoning?: ReasoningMode;
  /**
   * Whether the server continues a final assistant message (`continue_final_message: true` with
   * `add_generation_prompt: false`), as vLLM and SGLang do; when false such a request is refused with
   * a 400, like a server without the feature. @default true
   */
  continuation?: boolean;
  /**
   * Whether the server serves the OpenAI Responses API (`POST /v1/responses`), as vLLM does; when
   * false that path answers 404, like a server without it. @default true
   */
  responses?: boolean;
  /**
   * Natural reply length in tokens, like a real model that stops on its own (finish_reason "stop" when
   * below max_tokens). @default undefined: replies run to max_tokens (or 16 without it)
   */
  answerTokens?: number;
  /**
   * Serve POST /v1/embeddings like a vLLM embedding model (`--task embed`): deterministic unit vectors
   * from each input. Without it the route answers 404, like a vLLM serving a generative model.
   * @default undefined
   */
  embedding?: SimEmbedding;
}

/** An embedding model of the simulator. */
export interface SimEmbedding {
  /** Length of each vector. @default 1024 */
  dimensions?: number;
  /**
   * Whether `dimensions` in a request is honoured (a Matryoshka model such as Qwen3-Embedding); when
   * false a request with `dimensions` is refused with a 400, as vLLM does. @default false
   */
  matryoshka?: boolean;
}

export interface SimStats {
  /** Every HTTP request received, including /health, /v1/models and faulted ones. */
  requests: number;
  chatRequests: number;
  completionRequests: number;
  /** POST /v1/embeddings requests (to a backend that serves embeddings or not). */
  embeddingRequests: number;
  /** POST /v1/responses requests (served or, without `responses`, answered 404 as `other`). */
  responsesRequests: number;
  /** Requests per selected fault name. */
  byFault: Record<string, number>;
  /** Requests whose response has neither finished nor been aborted. */
  inFlight: number;
  /** TCP connections currently open, including idle keep-alive ones. */
  openSockets: number;
  /**
   * Bytes of stream bodies handed to sockets. A large body is written in slices that wait for
   * 'drain' (as vLLM's server waits on its transport), so this stays within a slice and the kernel's
   * buffers of what the reader has taken.
   */
  streamedBytes: number;
}

export interface SimBackend {
  id: string;
  port: number;
  /** e.g. `http://127.0.0.1:8101/v1` */
  baseUrl: string;
  stats(): SimStats;
  resetStats(): void;
  /** Sets the backend-wide fault (see `SimBackendOptions.fault`); also resets the once/flapping counters. */
  setFault(fault: FaultSpec | null): void;
  setLatency(latency: SimLatency): void;
  setResponder(responder: Responder | null): void;
  /** Stops listening and destroys every socket, including stalled ones. */
  close(): Promise<void>;
}

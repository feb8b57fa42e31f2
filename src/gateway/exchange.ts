import type { ExecuteResult } from '../balance/balancer.js';
import type { LoadedTable } from '../config/load-routing-table.js';
import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import type { EndpointName } from '../observe/request-summary.js';
import type { KeyAdmission } from '../policy/api-keys.js';
import type { Classified, RouteDecision, RouteHints } from '../routing/decide-route.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import type { Span } from '../shared/tracing.js';
import type { Usage } from '../upstream/chat-chunk.js';
import type { GatewayResponse } from './gateway.js';

/**
 * The stages of a request, in the order they run. The edge runs `authenticate` for every route; a
 * routed endpoint declares the rest it needs (src/endpoints), and `settle` ends every request once,
 * whatever happened: on success, after a stream's last byte, or on the first error.
 * `reserve` follows `plan` because what it reserves is the plan's: the tier's max_tokens and total timeout.
 */
export const STAGE_NAMES = [
  'authenticate',
  'parse',
  'admit',
  'classify',
  'plan',
  'reserve',
  'balance',
  'answer',
  'settle',
] as const;

export type StageName = (typeof STAGE_NAMES)[number];

/** Who may call an endpoint: anyone, any key (when keys are configured), or an admin key. */
export type Access = 'open' | 'key' | 'admin';

/** How a request ended: the status sent, and what stopped it. */
export interface Outcome {
  /** HTTP status sent (200 for a stream that later failed in-band). */
  status: number;
  /** What stopped the request; undefined for a success. */
  error: unknown;
}

/** What an answer knows about tokens: the upstream's usage, or the generated text to estimate from. */
export interface AnswerUsage {
  usage: Usage | undefined;
  /** Characters of generated text, for an estimate when the upstream reported no usage. */
  generatedChars: number;
  /** The generated text, collected only when content logging is on. */
  completionText?: string | undefined;
}

/**
 * One request, from the edge to its settlement: the edge creates it (the fields marked readonly), and
 * each stage (stages.ts) reads what the stages before it wrote and writes its own part. Observers read
 * it in the stage events and at settle. `T` is the endpoint's parsed body.
 */
export interface Exchange<T = unknown> {
  /** autotier's id for the request (a UUID), sent upstream as `x-request-id`. */
  readonly requestId: string;
  /** The client's own `x-request-id`, bounded (see toClientRequestId); logged, never sent upstream. */
  readonly clientRequestId: string | undefined;
  /** Aborted when the client disconnects (CLIENT_CLOSED), or when a drain's grace period ends (SHUTTING_DOWN). */
  readonly signal: CancelSignal;
  /** Epoch ms when the request arrived. */
  readonly receivedAt: number;
  /** Method and path (no query string) as the client sent them, for logs. */
  readonly http: { readonly method: string; readonly path: string };
  /** Routing hints from headers. */
  readonly hints: RouteHints;
  /** `Authorization` and `x-api-key` headers. */
  readonly credentials: { authorization?: string | undefined; apiKey?: string | undefined };
  /** The request's span; the routing work hangs its spans under it. */
  readonly trace: Span | undefined;
  /** The endpoint that serves it (`unknown` for a path no route has), and who may call it. */
  endpoint: EndpointName;
  access: Access;
  /** authenticate: the caller's key (undefined in open mode and on open routes). */
  key: ApiKeyConfig | undefined;
  /** authenticate: whether errors may show internal detail (an admin key, or open mode). */
  revealInternal: boolean;
  /** The JSON object the edge read, for endpoints that read a body. */
  body: Record<string, unknown> | undefined;
  /** The body's `stream: true`. */
  stream: boolean;
  /** parse: the routing table in force for this request (a reload does not change it mid-request). */
  loaded: LoadedTable | undefined;
  /** parse: the body, checked against the endpoint's schema. */
  request: T | undefined;
  /** parse: the prompt text, only when content logging is on. */
  prompt: string | undefined;
  /** classify: the prompt's count and what the model field and the classifier made of it. */
  classified: Classified | undefined;
  /** plan: the tier, its deployments and fallback, limits and the rules applied. */
  decision: RouteDecision | undefined;
  /** reserve: the key's concurrent slot and token reservation, freed at settle. */
  admission: KeyAdmission | undefined;
  /** balance: the committed answer, the deployment that gives it and the attempts before it. */
  result: ExecuteResult | undefined;
  /** answer: what the edge writes (JSON or SSE). */
  answer: GatewayResponse | undefined;
  /** answer: the tokens of the answer, when its JSON is built or its stream ends. */
  usage: AnswerUsage | undefined;
  /** settle: how it ended; set once. */
  outcome: Outcome | undefined;
  /** Milliseconds each stage that ran took (a stream's answer stage ends at its commit, not its end). */
  timings: Partial<Record<StageName, number>>;
}

/** The fields the edge sets; the stages fill in the rest. */
export type ExchangeStart = Pick<
  Exchange,
  'requestId' | 'clientRequestId' | 'signal' | 'receivedAt' | 'http' | 'hints' | 'credentials' | 'trace'
>;

/** A new exchange, before any stage ran. */
export function createExchange(start: ExchangeStart): Exchange {
  return {
    ...start,
    endpoint: 'unknown',
    access: 'open',
    key: undefined,
    revealInternal: false,
    body: undefined,
    stream: false,
    loaded: undefined,
    request: undefined,
    prompt: undefined,
    classified: undefined,
    decision: undefined,
    admission: undefined,
    result: undefined,
    answer: undefined,
    usage: undefined,
    outcome: undefined,
    timings: {},
  };
}

/**
 * A field an earlier stage writes, for a stage that needs it; a stage list in the wrong order is a
 * programming error (a 500), never a client's.
 */
export function need<V>(value: V | undefined, field: keyof Exchange, stage: StageName): V {
  if (value === undefined)
    throw new Error(`stage ${stage} needs exchange.${field}, which no earlier stage set`);
  return value;
}

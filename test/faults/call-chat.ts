import { toSseData } from '../helpers/start-stack.js';

export type Mode = 'stream' | 'non-stream';

/**
 * What a client got, judged the way a client would: `complete` (a 200 with a whole answer: JSON with a
 * finish_reason, or SSE ending in [DONE]), `in_band_error` (a 200 stream ended by `data: {"error":...}`
 * and no [DONE]), `error` (a non-200 JSON error body), or `broken` (anything else, e.g. a stream that
 * just stops, or an error sent as SSE): a conformant router never produces `broken`. `aborted`: the
 * client itself gave up (`abortAtMs`).
 */
export type ClientView = 'complete' | 'in_band_error' | 'error' | 'broken' | 'aborted';

export interface ChatCall {
  status: number;
  view: ClientView;
  /** Error code of an error body or of the in-band error event. */
  code: string | undefined;
  deployment: string | null;
  attempts: number | undefined;
  fallbacks: number | undefined;
  retryAfter: string | null;
  /** The answer text of choice 0 (streamed deltas joined, or the message content). */
  text: string;
  /** The deployment that continued a broken answer (`autotier.continuations` of the final chunk or body). */
  continuedBy: string | null;
  elapsedMs: number;
  /** Why `view` is `broken`, for the failure message. */
  detail: string;
}

interface ErrorBody {
  error?: { code?: string };
}
interface Continued {
  autotier?: { continuations?: { to?: string }[] };
}
interface CompletionBody extends ErrorBody, Continued {
  choices?: { message?: { content?: string | null }; finish_reason?: string | null }[];
}
interface StreamChunk extends Continued {
  choices?: { delta?: { content?: string | null } }[];
}

/** The answer text and the continuing deployment, read as a client would. */
function readAnswer(text: string, isSse: boolean): Pick<ChatCall, 'text' | 'continuedBy'> {
  const chunks: (StreamChunk & CompletionBody)[] = isSse
    ? toSseData(text).flatMap((data) => parseJson<StreamChunk>(data) ?? [])
    : [parseJson<CompletionBody>(text) ?? {}];
  let answer = '';
  let continuedBy: string | null = null;
  for (const chunk of chunks) {
    const choice = chunk.choices?.[0];
    answer += (isSse ? choice?.delta?.content : choice?.message?.content) ?? '';
    continuedBy = chunk.autotier?.continuations?.at(-1)?.to ?? continuedBy;
  }
  return { text: answer, continuedBy };
}

const toNumber = (value: string | null): number | undefined => (value === null ? undefined : Number(value));

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function judgeJson(status: number, text: string): Pick<ChatCall, 'view' | 'code' | 'detail'> {
  const body = parseJson<CompletionBody>(text);
  if (status !== 200)
    return body?.error?.code === undefined
      ? { view: 'broken', code: undefined, detail: `status ${status} without an error body: ${text}` }
      : { view: 'error', code: body.error.code, detail: '' };
  const choice = body?.choices?.[0];
  const whole = (choice?.message?.content ?? '') !== '' && (choice?.finish_reason ?? null) !== null;
  return whole
    ? { view: 'complete', code: undefined, detail: '' }
    : { view: 'broken', code: undefined, detail: `incomplete 200 body: ${text.slice(0, 300)}` };
}

function judgeSse(text: string): Pick<ChatCall, 'view' | 'code' | 'detail'> {
  const events = toSseData(text);
  const last = events.at(-1);
  const errors = events.filter((data) => data.startsWith('{"error"'));
  if (last === '[DONE]' && errors.length === 0) return { view: 'complete', code: undefined, detail: '' };
  const code = parseJson<ErrorBody>(last ?? '')?.error?.code;
  if (code !== undefined && errors.length === 1 && !events.includes('[DONE]'))
    return { view: 'in_band_error', code, detail: '' };
  return { view: 'broken', code, detail: `stream ended with ${last ?? 'nothing'} (${events.length} events)` };
}

export interface CallOptions {
  /** The client disconnects when this settles. */
  abortWhen?: Promise<unknown>;
}

const ABORTED: Omit<ChatCall, 'elapsedMs'> = {
  status: 0,
  view: 'aborted',
  code: undefined,
  deployment: null,
  attempts: undefined,
  fallbacks: undefined,
  retryAfter: null,
  text: '',
  continuedBy: null,
  detail: '',
};

/** One chat completion through the real HTTP API, timed from send to the last body byte. */
export async function callChat(url: string, mode: Mode, options: CallOptions = {}): Promise<ChatCall> {
  const started = performance.now();
  const controller = new AbortController();
  void options.abortWhen?.then(() => controller.abort());
  try {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tier:SIMPLE',
        messages: [{ role: 'user', content: 'hello there' }],
        stream: mode === 'stream',
      }),
      signal: controller.signal,
    });
    const text = await response.text();
    return judge({ response, text, mode, elapsedMs: performance.now() - started });
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    return { ...ABORTED, elapsedMs: performance.now() - started };
  }
}

function judge(input: { response: Response; text: string; mode: Mode; elapsedMs: number }): ChatCall {
  const { response, text, mode, elapsedMs } = input;
  const type = response.headers.get('content-type') ?? '';
  const isSse = type.startsWith('text/event-stream');
  // SSE exactly when a stream was asked for and answered 200: an error is never half-sent as a stream.
  const judged =
    isSse === (mode === 'stream' && response.status === 200)
      ? isSse
        ? judgeSse(text)
        : judgeJson(response.status, text)
      : {
          view: 'broken' as const,
          code: undefined,
          detail: `${mode} answered ${response.status} as ${type}`,
        };
  return {
    status: response.status,
    ...judged,
    ...readAnswer(text, isSse),
    deployment: response.headers.get('x-autotier-deployment'),
    attempts: toNumber(response.headers.get('x-autotier-attempts')),
    fallbacks: toNumber(response.headers.get('x-autotier-fallbacks')),
    retryAfter: response.headers.get('retry-after'),
    elapsedMs,
  };
}

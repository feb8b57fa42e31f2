import { errors, request, type Dispatcher } from 'undici';
import type { Random } from '../../src/shared/clock.js';
import type { FaultSpec } from '../../sim/index.js';

/** Faults a soak request may carry on its first upstream attempt, drawn uniformly. */
export const SOAK_FAULTS: readonly FaultSpec[] = [
  { name: 'error_503' },
  { name: 'reset_before_headers' },
  { name: 'slow_first_token', params: { ms: 2500 } },
  { name: 'cut_mid_stream', params: { after: 2 } },
  { name: 'stall_mid_stream', params: { after: 2 } },
  { name: 'malformed_chunk', params: { after: 2 } },
  { name: 'rate_limit', params: { seconds: 1 } },
  { name: 'rate_limit_no_retry_after' },
];

export interface TrafficMix {
  /** Share of requests whose first attempt faults. */
  faultRate: number;
  /** Share of streams the client abandons after the first chunk. */
  abortRate: number;
  /** Share of streaming requests. */
  streamShare: number;
}

export interface RequestPlan {
  id: string;
  stream: boolean;
  tier: 'SIMPLE' | 'COMPLEX';
  fault: FaultSpec | undefined;
  abortAfterFirstChunk: boolean;
  maxTokens: number;
  prompt: string;
}

/** The n-th request of a run, drawn from the seeded random: the same seed gives the same traffic. */
export function planRequest(index: number, random: Random, mix: TrafficMix): RequestPlan {
  const [streamDraw = 0, faultDraw = 0, whichFault = 0, tierDraw = 0, abortDraw = 0, lengthDraw = 0] =
    Array.from({ length: 6 }, () => random());
  const stream = streamDraw < mix.streamShare;
  const id = `soak-${index}`;
  return {
    id,
    stream,
    tier: tierDraw < 0.6 ? 'SIMPLE' : 'COMPLEX',
    fault: faultDraw < mix.faultRate ? SOAK_FAULTS[Math.floor(whichFault * SOAK_FAULTS.length)] : undefined,
    abortAfterFirstChunk: stream && abortDraw < mix.abortRate,
    maxTokens: 8 + Math.floor(lengthDraw * 40),
    // the id in the text lets the fault-injecting upstream find the request (see toPlanId)
    prompt: `[${id}] soak question ${index % 97}: ${'why '.repeat(1 + (index % 13))}`,
  };
}

export interface RequestResult {
  /** `ok`, `client_abort`, `http_<status>:<code>`, `in_band:<code>` or `broken:<why>`. */
  outcome: string;
  /** x-autotier-attempts of an answered request. */
  attemptsHeader: number | undefined;
  latencyMs: number;
  /** The error message of a failed request, for the report's examples. */
  message?: string;
}

interface Body {
  choices?: { message?: { content?: string | null }; finish_reason?: string | null }[];
  error?: { code?: string; message?: string };
}

function parse(text: string): Body | undefined {
  try {
    return JSON.parse(text) as Body;
  } catch {
    return undefined;
  }
}

function classifyJson(status: number, text: string): string {
  const body = parse(text);
  if (status !== 200) return `http_${status}:${body?.error?.code ?? 'no_error_body'}`;
  const choice = body?.choices?.[0];
  return (choice?.message?.content ?? '') !== '' && (choice?.finish_reason ?? null) !== null
    ? 'ok'
    : 'broken:incomplete_json';
}

/** A stream is whole when it ends in [DONE], or cleanly failed when it ends in one error event. */
function classifySse(text: string): string {
  const events = text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6));
  const last = events.at(-1) ?? '';
  const errorCount = events.filter((data) => data.startsWith('{"error"')).length;
  if (last === '[DONE]') return errorCount === 0 ? 'ok' : 'broken:error_then_done';
  const code = parse(last)?.error?.code;
  return code !== undefined && errorCount === 1 ? `in_band:${code}` : 'broken:truncated_stream';
}

/** The whole body, or undefined when the client walks away after the first chunk of a 200 stream. */
async function readBody(response: Dispatcher.ResponseData, plan: RequestPlan, abort: () => void) {
  const { body } = response;
  if (!plan.abortAfterFirstChunk || response.statusCode !== 200) return body.text();
  for await (const chunk of body) {
    void chunk;
    abort();
    break;
  }
  return undefined;
}

/** The error message in a JSON body or in the last SSE event, else the text's end. */
function toMessage(text: string): string {
  const last = text.trimEnd().split('\n\n').at(-1) ?? '';
  const body = parse(last.startsWith('data: ') ? last.slice(6) : last);
  return (body?.error?.message ?? text.slice(-200)).slice(0, 400);
}

/** Sends one planned request and judges what came back the way a client would. */
export async function sendPlanned(input: {
  url: string;
  dispatcher: Dispatcher;
  plan: RequestPlan;
}): Promise<RequestResult> {
  const { plan } = input;
  const started = performance.now();
  const controller = new AbortController();
  const result = (outcome: string, attemptsHeader?: number): RequestResult => ({
    outcome,
    attemptsHeader,
    latencyMs: performance.now() - started,
  });
  try {
    const response = await request(`${input.url}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: input.dispatcher,
      signal: controller.signal,
      headers: { 'content-type': 'application/json', 'x-request-id': plan.id },
      body: JSON.stringify({
        model: `tier:${plan.tier}`,
        messages: [{ role: 'user', content: plan.prompt }],
        stream: plan.stream,
        max_tokens: plan.maxTokens,
      }),
    });
    const attempts = Number(response.headers['x-autotier-attempts'] ?? Number.NaN);
    const text = await readBody(response, plan, () => controller.abort());
    const attemptsHeader = Number.isFinite(attempts) ? attempts : undefined;
    if (text === undefined) return result('client_abort', attemptsHeader);
    const isSse = String(response.headers['content-type']).startsWith('text/event-stream');
    if (isSse !== (plan.stream && response.statusCode === 200)) return result('broken:wrong_content_type');
    const outcome = isSse ? classifySse(text) : classifyJson(response.statusCode, text);
    return { ...result(outcome, attemptsHeader), ...(outcome === 'ok' ? {} : { message: toMessage(text) }) };
  } catch (error) {
    if (controller.signal.aborted) return result('client_abort');
    const code = error instanceof errors.UndiciError ? error.code : (error as Error).name;
    return { ...result(`broken:transport_${code}`), message: String(error) };
  }
}

/** Helpers for the simulator's own tests: plain fetch on loopback, nothing mocked. */
export interface PostOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** POSTs `body` as JSON to `url` (e.g. `${backend.baseUrl}/chat/completions`). */
export function postJson(url: string, body: unknown, options: PostOptions = {}): Promise<Response> {
  const init: RequestInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(body),
  };
  if (options.signal !== undefined) init.signal = options.signal;
  return fetch(url, init);
}

/** The `data:` payloads of an SSE text, in order; `[DONE]` stays a string. */
export function toSsePayloads(text: string): string[] {
  return text
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => (event.startsWith('data: ') ? event.slice(6) : event));
}

/** Parsed JSON chunks of an SSE text, skipping `[DONE]`. */
export function toSseChunks(text: string): Record<string, unknown>[] {
  return toSsePayloads(text)
    .filter((payload) => payload !== '[DONE]')
    .map((payload) => JSON.parse(payload) as Record<string, unknown>);
}

export interface TimedText {
  /** Milliseconds since reading started. */
  at: number;
  text: string;
}

/** Reads a body piece by piece with arrival times; `error` is set when the stream broke. */
export async function readTimed(response: Response): Promise<{ pieces: TimedText[]; error?: unknown }> {
  const started = performance.now();
  const pieces: TimedText[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { pieces };
      pieces.push({ at: performance.now() - started, text: decoder.decode(value, { stream: true }) });
    }
  } catch (error) {
    return { pieces, error };
  }
}

/** Resolves after `milliseconds` of real time. */
export function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Polls `check` every 10 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (check()) return true;
    await delay(10);
  }
  return check();
}

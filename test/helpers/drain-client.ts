import { connect } from 'node:net';
import { toSseData } from './start-stack.js';

/** A client of a draining service (test/faults/shutdown.test.ts, test/integration/drain-process.test.ts). */

export const chatBody = (stream: boolean, maxTokens: number): string =>
  JSON.stringify({
    model: 'tier:SIMPLE',
    messages: [{ role: 'user', content: 'hello there' }],
    stream,
    max_tokens: maxTokens,
  });

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** A chat request read as it arrives: `firstBytes` settles on the first body bytes, `answer` at the end. */
export function startChat(
  url: string,
  input: { stream: boolean; maxTokens: number; headers?: Record<string, string> },
) {
  let onFirst: () => void = () => undefined;
  const firstBytes = new Promise<void>((resolve) => (onFirst = resolve));
  const answer = (async (): Promise<Answer> => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...input.headers },
      body: chatBody(input.stream, input.maxTokens),
    });
    let text = '';
    const decoder = new TextDecoder();
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
      text += decoder.decode(read.value, { stream: true });
      onFirst();
    }
    return { status: response.status, headers: response.headers, text };
  })();
  return { firstBytes, answer };
}

export interface ChatChunkData {
  choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
  error?: { code?: string };
}

/** The SSE events of a stream, parsed (`[DONE]` kept as a string). */
export function toEvents(text: string): (ChatChunkData | '[DONE]')[] {
  return toSseData(text).map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as ChatChunkData)));
}

/** Content tokens of a stream (the simulator sends one per chunk). */
export function contentChunks(events: (ChatChunkData | '[DONE]')[]): number {
  return events.filter((event) => event !== '[DONE]' && (event.choices?.[0]?.delta?.content ?? '') !== '')
    .length;
}

/** Whether a new TCP connection to the service is refused (the listener is closed). */
export function connectOutcome(url: string): Promise<'refused' | 'accepted'> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve('refused') : reject(error),
    );
  });
}

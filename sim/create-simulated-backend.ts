import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, systemRandom, systemSleep, type Random } from '../src/shared/clock.js';
import type { BackendContext } from './backend-context.js';
import { createFaultState } from './fault-state.js';
import { routeRequest, toModelsBody } from './route-request.js';
import { createSimStats, type SimStatsRecorder } from './sim-stats.js';
import type { FaultSpec, Responder, SimBackend, SimBackendOptions, SimLatency } from './types.js';

/** Context window when none is given, in tokens. @default 32768 */
export const DEFAULT_CONTEXT_WINDOW = 32768;
/** Vector length of a simulated embedding model without its own (bge-m3's). */
export const DEFAULT_EMBEDDING_DIMENSIONS = 1024;

/** Starts one simulated vLLM OpenAI server and resolves once it listens. */
export async function createSimulatedBackend(options: SimBackendOptions): Promise<SimBackend> {
  let fault: FaultSpec | undefined = options.fault;
  let latency: SimLatency = { ...options.latency };
  let responder: Responder | undefined = options.responder;
  const random = options.random ?? systemRandom;
  const clock = options.clock ?? systemClock;
  const stats = createSimStats();
  const faultState = createFaultState();
  const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const backend: BackendContext = {
    backendId: options.id,
    models: [...options.models],
    contextWindow,
    reasoningMode: options.reasoning ?? 'reasoning_content',
    answerTokens: options.answerTokens,
    continuation: options.continuation ?? true,
    embedding:
      options.embedding === undefined
        ? undefined
        : {
            dimensions: options.embedding.dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS,
            matryoshka: options.embedding.matryoshka ?? false,
          },
    responses: options.responses ?? true,
    settings: () => ({ fault, latency, responder }),
    faultState,
    stats,
    random,
    clock,
    sleep: options.sleep ?? systemSleep,
    nextId: createIdSource(random),
  };
  const modelsBody = toModelsBody(backend.models, contextWindow, Math.floor(clock.now() / 1000));
  const server = createServer((request, response) =>
    routeRequest({ backend, modelsBody }, request, response),
  );
  const sockets = trackSockets(server, stats);
  const port = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    id: options.id,
    port,
    baseUrl: `http://${options.host ?? '127.0.0.1'}:${port}/v1`,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    setFault: (next) => {
      fault = next ?? undefined;
      faultState.reset();
    },
    setLatency: (next) => {
      latency = { ...next };
    },
    setResponder: (next) => {
      responder = next ?? undefined;
    },
    close: createCloser(server, sockets),
  };
}

/** Ids like vLLM's 32 hex digits after the prefix: a random per-backend part and a counter. */
function createIdSource(random: Random): (prefix: string) => string {
  const base = [random(), random()]
    .map((value) =>
      Math.floor(value * 2 ** 32)
        .toString(16)
        .padStart(8, '0'),
    )
    .join('');
  let counter = 0;
  return (prefix) => {
    counter += 1;
    return `${prefix}${base}${counter.toString(16).padStart(16, '0')}`;
  };
}

function trackSockets(server: Server, stats: SimStatsRecorder): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    stats.socketOpened();
    socket.once('close', () => {
      sockets.delete(socket);
      stats.socketClosed();
    });
  });
  return sockets;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops listening and destroys every socket, stalled or idle, then resolves once the server and every
 * socket have emitted `close` (so the gauges read 0). Later calls share the first promise.
 */
function createCloser(server: Server, sockets: Set<Socket>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const socketsClosed = [...sockets].map((socket) => {
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.destroy();
        return closed;
      });
      await Promise.all([serverClosed, ...socketsClosed]);
    })();
    return closing;
  };
}

import type { Dispatcher } from 'undici';
import { createCancelController, type CancelController, type CancelSignal } from '../shared/cancel-signal.js';
import type { Clock } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import { redactSecrets } from '../shared/redact.js';
import { createAttemptWatchdog, type AttemptWatchdog } from './attempt-watchdog.js';
import { createEventQueue, type EventQueue } from './event-queue.js';
import { createEventReader, type EventReader } from './event-reader.js';
import { createJsonReader } from './json-reader.js';
import { toStreamProtocol } from './response-event-chunk.js';
import { toErrorFromException, toErrorFromStatus } from './translate-error.js';
import type { AttemptRequest, UpstreamAttempt } from './upstream.js';

/** Longest upstream error body read, in bytes: enough for any message, bounded for a hostile server. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The error of an aborted signal: its RouterError reason, or CLIENT_CLOSED; undefined when not aborted. */
function toCancelError(signal: CancelSignal, error: unknown): RouterError | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  if (reason instanceof RouterError) return reason;
  return new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection', cause: error });
}

function linkAbort(parent: CancelSignal, controller: CancelController): () => void {
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return () => parent.removeEventListener('abort', onAbort);
}

interface AttemptOptions {
  request: AttemptRequest;
  clock: Clock;
  /** Secret values (the deployment's API key) masked in any upstream text an error carries. */
  secrets: readonly string[];
  resolve: (attempt: UpstreamAttempt) => void;
  reject: (error: RouterError) => void;
}

/**
 * One attempt as an undici dispatch handler: the body's bytes are parsed into events in the data
 * callback and handed to the reader through an event queue, with no stream or iterator objects in
 * between (they were a fifth of the CPU of a request in the bench's profile). Resolves at status 200
 * headers; rejects with a RouterError for another status (after reading its error body), a
 * connection failure, a timer or the client going away.
 */
class AttemptHandler implements Dispatcher.DispatchHandler {
  private readonly controller = createCancelController();
  private readonly watchdog: AttemptWatchdog;
  private readonly reader: EventReader;
  private readonly events: EventQueue;
  private readonly startedAt: number;
  private readonly unlink: () => void;
  private dispatch: Dispatcher.DispatchController | undefined;
  /** Set for a status other than 200: its error body is collected, then the attempt rejects. */
  private errorStatus: { status: number; retryAfter: string | undefined; text: string } | undefined;
  private opened = false;
  private bodyEnded = false;
  private released = false;

  constructor(private readonly options: AttemptOptions) {
    const { request, clock } = options;
    this.startedAt = clock.now();
    this.unlink = linkAbort(request.signal, this.controller);
    this.watchdog = createAttemptWatchdog({
      limits: request.limits,
      controller: this.controller,
      clock,
      deploymentId: request.deployment.id,
    });
    this.reader =
      request.answer === 'json'
        ? createJsonReader({ watchdog: this.watchdog, deploymentId: request.deployment.id })
        : createEventReader({
            watchdog: this.watchdog,
            deploymentId: request.deployment.id,
            secrets: options.secrets,
            protocol: toStreamProtocol(request.path),
          });
    this.events = createEventQueue({
      // a reader that is behind is not the deployment's stall: its idle limit waits with the read
      pause: () => {
        this.watchdog.onPause();
        this.dispatch?.pause();
      },
      resume: () => {
        this.watchdog.onResume();
        this.dispatch?.resume();
      },
      onClose: () => {
        this.release();
        // the reader stopped before the body ended: free the connection
        if (!this.bodyEnded) this.controller.abort();
      },
    });
    this.controller.signal.addEventListener('abort', this.abortDispatch, { once: true });
  }

  private readonly abortDispatch = (): void => {
    const reason: unknown = this.controller.signal.reason;
    this.dispatch?.abort(reason instanceof Error ? reason : new Error('attempt aborted'));
  };

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.watchdog.stop();
    this.unlink();
  }

  private endBody(): void {
    this.bodyEnded = true;
    this.controller.signal.removeEventListener('abort', this.abortDispatch);
  }

  /** Rejects the attempt before it opened: the timer that fired, the client, or the failure itself. */
  failOpen(error: unknown): void {
    this.release();
    this.controller.signal.removeEventListener('abort', this.abortDispatch);
    const { request } = this.options;
    if (error instanceof RouterError) return this.options.reject(this.watchdog.reason() ?? error);
    this.options.reject(
      this.watchdog.reason() ??
        toCancelError(request.signal, error) ??
        toErrorFromException(error, { deploymentId: request.deployment.id, secrets: this.options.secrets }),
    );
  }

  onRequestStart(dispatch: Dispatcher.DispatchController): void {
    this.dispatch = dispatch;
    if (this.controller.signal.aborted) this.abortDispatch();
  }

  onResponseStart(
    _dispatch: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.watchdog.onHeaders();
    if (statusCode !== 200) {
      const retryAfter = headers['retry-after'];
      this.errorStatus = {
        status: statusCode,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        text: '',
      };
      return;
    }
    this.opened = true;
    this.options.resolve({
      headersMs: this.options.clock.now() - this.startedAt,
      events: this.events,
      abort: () => {
        this.controller.abort();
        this.events.fail(new RouterError({ code: 'CLIENT_CLOSED', message: 'attempt stopped' }));
      },
    });
  }

  onResponseData(dispatch: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.errorStatus !== undefined) {
      if (this.errorStatus.text.length < MAX_ERROR_BODY_BYTES)
        this.errorStatus.text += chunk.toString('utf8');
      return;
    }
    const read = this.reader.push(chunk);
    this.events.push(read.events);
    if (read.error !== undefined) {
      this.events.fail(read.error);
      dispatch.abort(read.error);
    }
  }

  onResponseEnd(): void {
    this.endBody();
    const { errorStatus } = this;
    if (errorStatus !== undefined) {
      this.failOpen(
        toErrorFromStatus({
          status: errorStatus.status,
          bodyText: errorStatus.text,
          retryAfter: errorStatus.retryAfter,
          deploymentId: this.options.request.deployment.id,
          now: this.options.clock.now(),
          secrets: this.options.secrets,
        }),
      );
      return;
    }
    const tail = this.watchdog.reason() === undefined ? this.reader.end?.() : undefined;
    if (tail !== undefined) this.events.push(tail.events);
    const cut = this.watchdog.reason() ?? tail?.error ?? this.reader.finish();
    if (cut === undefined) this.events.end();
    else this.events.fail(cut);
  }

  onResponseError(_dispatch: Dispatcher.DispatchController, error: Error): void {
    this.endBody();
    if (!this.opened) return this.failOpen(error);
    this.events.fail(this.toReadError(error));
  }

  /** The error of a body that broke after status 200: a timer, the client, or the connection. */
  private toReadError(error: unknown): RouterError {
    const fired = this.watchdog.reason();
    if (fired !== undefined) return fired;
    if (error instanceof RouterError) return error;
    return (
      toCancelError(this.controller.signal, error) ??
      new RouterError({
        code: 'UPSTREAM_STREAM_CUT',
        message: `${this.options.request.deployment.id}: stream broken (${redactSecrets((error as Error).message, this.options.secrets)})`,
        retryable: true,
        cause: error,
      })
    );
  }
}

/** Starts one attempt: `dispatch` hands the handler to the deployment's pool. */
export function startAttempt(options: {
  request: AttemptRequest;
  clock: Clock;
  dispatch: (handler: Dispatcher.DispatchHandler) => void;
  /** Secret values masked in upstream error text. @default [] */
  secrets?: readonly string[];
}): Promise<UpstreamAttempt> {
  return new Promise<UpstreamAttempt>((resolve, reject) => {
    const handler = new AttemptHandler({
      request: options.request,
      clock: options.clock,
      secrets: options.secrets ?? [],
      resolve,
      reject,
    });
    try {
      options.dispatch(handler);
    } catch (error) {
      handler.failOpen(error);
    }
  });
}

import { z } from 'zod';

/**
 * Jobs the load worker accepts (as one JSON argument) and the results it prints (one JSON line).
 * Shared by load.ts (parent) and load-worker.ts (child) so both sides validate the same shapes.
 */
const target = {
  /** Full URL, e.g. `http://127.0.0.1:4000/v1/chat/completions`. */
  url: z.url(),
  /** Request body, already serialized as JSON. */
  body: z.string(),
  /** Extra headers; `content-type: application/json` is always sent. */
  headers: z.record(z.string(), z.string()).default({}),
};

export const latencyJobSchema = z
  .object({
    kind: z.literal('latency'),
    ...target,
    /** Measured requests, sent one after another on one keep-alive connection. */
    requests: z.int().positive(),
    /** Requests sent first and not measured. @default 50 */
    warmup: z.int().nonnegative().default(50),
    /**
     * Stops the measured run after this long even if fewer than `requests` were sent, in seconds,
     * so a busy machine cannot stretch the bench; `ok` tells how many were measured. @default none
     */
    maxDurationSeconds: z.number().positive().optional(),
  })
  .strict();

export const rateJobSchema = z
  .object({
    kind: z.literal('rate'),
    ...target,
    /** Requests started per second, on a fixed schedule whatever the responses do (open loop). */
    rate: z.number().positive(),
    durationSeconds: z.number().positive(),
    /** Keep-alive connections the requests may use; more requests in flight queue in the client. */
    connections: z.int().positive().default(32),
    /**
     * Before the schedule starts, send this many requests at once (unmeasured) so every pooled
     * connection is open and the first measured requests do not pay for TCP set-up. @default connections
     */
    warmupRequests: z.int().nonnegative().optional(),
  })
  .strict();

export const streamJobSchema = z
  .object({
    kind: z.literal('stream'),
    ...target,
    /** SSE streams, one connection each. */
    streams: z.int().positive(),
    /** Pause between two stream starts, in milliseconds; 0 starts them all together. @default 0 */
    startIntervalMs: z.number().nonnegative().default(0),
    /** A gap between content chunks longer than this marks the stream as stalled, in milliseconds. @default 1000 */
    stallThresholdMs: z.number().positive().default(1000),
    /** A stream not finished after this long counts as an error, in milliseconds. @default 60000 */
    timeoutMs: z.number().positive().default(60_000),
    /** Return every first-content time and gap (for percentiles pooled over several runs). @default false */
    samples: z.boolean().default(false),
  })
  .strict();

export const abuseJobSchema = z
  .object({
    kind: z.literal('abuse'),
    ...target,
    /** GET this while the requests run, one probe at a time, to see whether the router's event loop is free. */
    healthUrl: z.url(),
    /** Pause between two /health probes, in milliseconds. @default 5 */
    healthIntervalMs: z.number().positive().default(5),
    /** Measured requests, one after another. */
    requests: z.int().positive(),
    /** Requests sent first and not measured. @default 2 */
    warmup: z.int().nonnegative().default(2),
  })
  .strict();

export const loadJobSchema = z.discriminatedUnion('kind', [
  latencyJobSchema,
  rateJobSchema,
  streamJobSchema,
  abuseJobSchema,
]);

/** Latency percentiles in milliseconds (fractional). */
const percentiles = {
  p50Ms: z.number(),
  p90Ms: z.number(),
  p99Ms: z.number(),
  maxMs: z.number(),
  meanMs: z.number(),
};

export const latencyResultSchema = z.object({
  kind: z.literal('latency'),
  /** Measured requests that completed with a 2xx status; percentiles cover only these. */
  ok: z.int(),
  non2xx: z.int(),
  errors: z.int(),
  ...percentiles,
  minMs: z.number(),
});

export const rateResultSchema = z.object({
  kind: z.literal('rate'),
  targetRate: z.number(),
  /** Completed (any status) requests per second over the time from first send to last completion. */
  achievedRate: z.number(),
  sent: z.int(),
  ok: z.int(),
  non2xx: z.int(),
  errors: z.int(),
  ...percentiles,
  /** Worst lateness of the generator's own schedule, in milliseconds; large values mean the client, not the server, was the bottleneck. */
  maxSendLagMs: z.number(),
});

export const streamResultSchema = z.object({
  kind: z.literal('stream'),
  streams: z.int(),
  /** Streams that answered 2xx and ended with `data: [DONE]`. */
  completed: z.int(),
  non2xx: z.int(),
  errors: z.int(),
  /** Time from sending the request to the first non-empty `delta.content`, in milliseconds. */
  ttfcP50Ms: z.number(),
  ttfcP99Ms: z.number(),
  /** Gaps between consecutive content chunks of a stream, all streams pooled, in milliseconds. */
  gapP50Ms: z.number(),
  gapP99Ms: z.number(),
  gapMaxMs: z.number(),
  /** Whole-stream duration, in milliseconds. */
  durationP50Ms: z.number(),
  durationP99Ms: z.number(),
  stallThresholdMs: z.number(),
  /** Streams with at least one gap above stallThresholdMs. */
  stalledStreams: z.int(),
  /** Fewest and most content chunks seen in one completed stream. */
  minContentChunks: z.int(),
  maxContentChunks: z.int(),
  /** With `samples`: each completed stream's first-content time and every gap, in milliseconds. */
  samples: z.object({ ttfcMs: z.array(z.number()), gapsMs: z.array(z.number()) }).optional(),
});

export const abuseResultSchema = z.object({
  kind: z.literal('abuse'),
  /** Whole request times (send to last byte), in milliseconds. */
  request: z.object(percentiles),
  /** Response statuses of the measured requests, e.g. `{ "400": 10 }`. */
  statuses: z.record(z.string(), z.int()),
  /** /health probe times while the requests ran, in milliseconds. */
  health: z.object(percentiles),
  healthProbes: z.int(),
});

export const loadResultSchema = z.discriminatedUnion('kind', [
  latencyResultSchema,
  rateResultSchema,
  streamResultSchema,
  abuseResultSchema,
]);

export type LoadJobInput = z.input<typeof loadJobSchema>;
export type LatencyJob = z.infer<typeof latencyJobSchema>;
export type RateJob = z.infer<typeof rateJobSchema>;
export type StreamJob = z.infer<typeof streamJobSchema>;
export type LatencyResult = z.infer<typeof latencyResultSchema>;
export type RateResult = z.infer<typeof rateResultSchema>;
export type StreamResult = z.infer<typeof streamResultSchema>;
export type AbuseJob = z.infer<typeof abuseJobSchema>;
export type AbuseResult = z.infer<typeof abuseResultSchema>;
export type LoadResult = z.infer<typeof loadResultSchema>;

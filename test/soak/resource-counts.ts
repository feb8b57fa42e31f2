/** Handles that keep the event loop alive, by kind, from process.getActiveResourcesInfo(). */
export interface ResourceCounts {
  /** TCP sockets (client and server side). */
  sockets: number;
  /** Listening servers. */
  servers: number;
  timers: number;
}

export function countResources(): ResourceCounts {
  const kinds = process.getActiveResourcesInfo();
  const count = (kind: string): number => kinds.filter((name) => name === kind).length;
  return { sockets: count('TCPSocketWrap'), servers: count('TCPServerWrap'), timers: count('Timeout') };
}

/** Polls until the counts are back to `baseline` (plus `timerTolerance` timers), or `timeoutMs` passes. */
export async function waitForBaseline(input: {
  baseline: ResourceCounts;
  timerTolerance: number;
  timeoutMs: number;
}): Promise<ResourceCounts> {
  const deadline = performance.now() + input.timeoutMs;
  for (;;) {
    const now = countResources();
    const settled =
      now.sockets <= input.baseline.sockets &&
      now.servers <= input.baseline.servers &&
      now.timers <= input.baseline.timers + input.timerTolerance;
    if (settled || performance.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

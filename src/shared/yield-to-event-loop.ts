/** Resolves on the next turn of the event loop (setImmediate): lets timers and other requests run. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

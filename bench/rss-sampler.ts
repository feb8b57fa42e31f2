import { readTreeRssMiB } from './process-tree.js';

export interface RssSampler {
  /** Largest RSS seen since start, in MiB. */
  peakMiB(): number;
  stop(): void;
}

/** Reads the RSS of a process tree every `intervalMs` (default 100) and keeps the largest. */
export function startRssSampler(pid: number, intervalMs = 100): RssSampler {
  let peak = readTreeRssMiB(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, readTreeRssMiB(pid) ?? 0);
  }, intervalMs);
  return {
    peakMiB: () => peak,
    stop: () => clearInterval(timer),
  };
}

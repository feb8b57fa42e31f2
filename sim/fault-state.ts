/** Per-backend memory for faults whose outcome depends on earlier requests. */
export interface FaultState {
  /** True for the first `error_500_once` request since the last reset, false afterwards. */
  takeFirstFailure(): boolean;
  /**
   * True when this `flapping` request falls in a failing phase. Phases alternate every `period`
   * requests, starting with a failing one.
   */
  isFlappingFailure(period: number): boolean;
  reset(): void;
}

export function createFaultState(): FaultState {
  let failedOnce = false;
  let flappingCount = 0;
  return {
    takeFirstFailure: () => {
      if (failedOnce) return false;
      failedOnce = true;
      return true;
    },
    isFlappingFailure: (period) => {
      const phaseLength = Math.max(1, Math.floor(period));
      const phase = Math.floor(flappingCount / phaseLength);
      flappingCount += 1;
      return phase % 2 === 0;
    },
    reset: () => {
      failedOnce = false;
      flappingCount = 0;
    },
  };
}

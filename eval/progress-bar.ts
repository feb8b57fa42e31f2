/** What one progress line shows. */
export interface ProgressState {
  done: number;
  total: number;
  /** Milliseconds since the run started. */
  elapsedMs: number;
}

/** Characters of the bar between the brackets. */
const BAR_WIDTH = 24;

/** `m:ss` (or `h:mm:ss`) of a duration in milliseconds. */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  const [hours, minutes, rest] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const tail = `${String(rest).padStart(2, '0')}`;
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${tail}` : `${minutes}:${tail}`;
}

/** `[#########---------]  120/430  28%  14.2/s  ETA 0:22`; the ETA assumes the rate so far holds. */
export function formatProgress(state: ProgressState): string {
  const share = state.total === 0 ? 1 : Math.min(1, state.done / state.total);
  const filled = Math.round(share * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
  const perSecond = state.elapsedMs > 0 ? (1000 * state.done) / state.elapsedMs : 0;
  const remainingMs =
    state.done > 0 ? (state.elapsedMs / state.done) * (state.total - state.done) : undefined;
  const eta = remainingMs === undefined ? 'ETA --:--' : `ETA ${formatDuration(remainingMs)}`;
  const count = `${String(state.done).padStart(String(state.total).length)}/${state.total}`;
  return `${bar} ${count} ${String(Math.floor(share * 100)).padStart(3)}% ${perSecond.toFixed(1)}/s ${eta}`;
}

export interface ProgressReporterOptions {
  total: number;
  /** Prefix, e.g. the run's label. */
  label: string;
  write: (text: string) => void;
  /** A terminal redraws one line; a log (CI) gets a line per 10% once a run is slow enough to care. */
  isTty: boolean;
  /** Milliseconds, monotonic. */
  now: () => number;
  /** Shortest gap between terminal redraws, in ms. @default 100 */
  redrawMs?: number;
  /** A log only gets progress lines after this long, so fast local runs stay quiet, in ms. @default 2000 */
  quietMs?: number;
}

export interface ProgressReporter {
  update(done: number): void;
  finish(): void;
}

export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const { total, label, write, now, redrawMs = 100, quietMs = 2000 } = options;
  const started = now();
  let lastDraw = -Infinity;
  let lastDecile = 0;
  let drawn = false;
  const line = (done: number): string =>
    `${label} ${formatProgress({ done, total, elapsedMs: now() - started })}`;
  return {
    update(done) {
      const time = now();
      if (options.isTty) {
        if (time - lastDraw < redrawMs && done < total) return;
        lastDraw = time;
        drawn = true;
        write(`\r${line(done)}`);
        return;
      }
      const decile = Math.floor((10 * done) / Math.max(1, total));
      if (decile <= lastDecile || time - started < quietMs) return;
      lastDecile = decile;
      write(`${line(done)}\n`);
    },
    finish() {
      if (drawn) write('\n');
    },
  };
}

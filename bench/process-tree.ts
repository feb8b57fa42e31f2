import { readdirSync, readFileSync } from 'node:fs';

/**
 * Reads memory and children of processes from /proc (Linux only), for the bench's memory figures
 * and for spotting the worker processes of `autotier --workers N`.
 */

/** A kB field of /proc/<pid>/status, in MiB; undefined when the process is gone. */
function readStatusMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Resident set size from /proc/<pid>/status `VmRSS`, in MiB; undefined when the process is gone. */
export function readRssMiB(pid: number): number | undefined {
  return readStatusMiB(pid, 'VmRSS');
}

/** Largest resident set size of one process since it started (`VmHWM`), in MiB. */
export function readPeakRssMiB(pid: number): number | undefined {
  return readStatusMiB(pid, 'VmHWM');
}

/**
 * Largest resident set size the kernel saw since the process started (`VmHWM`), in MiB, summed over
 * the process and its descendants: a start's peak, which a sampler could miss between two readings.
 */
export function readTreePeakRssMiB(pid: number): number | undefined {
  const own = readStatusMiB(pid, 'VmHWM');
  if (own === undefined) return undefined;
  return listDescendants(pid).reduce((sum, child) => sum + (readStatusMiB(child, 'VmHWM') ?? 0), own);
}

/**
 * The fields of /proc/<pid>/stat after the parenthesized name (which may hold spaces): index 0 is
 * the 3rd field of the file (state); undefined when the process is gone.
 */
function readStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Parent pid of a process, the 4th field of /proc/<pid>/stat. */
function readParentPid(pid: number): number | undefined {
  const fields = readStatFields(pid);
  return fields === undefined ? undefined : Number(fields[1]);
}

/** Every live descendant of `pid` (children, grandchildren, ...). */
export function listDescendants(pid: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = Number(entry);
    const parent = readParentPid(child);
    if (parent === undefined) continue;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = childrenOf.get(queue.shift() ?? -1) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** RSS of a process and all its descendants together, in MiB (shared pages counted once per process). */
export function readTreeRssMiB(pid: number): number | undefined {
  const own = readRssMiB(pid);
  if (own === undefined) return undefined;
  return listDescendants(pid).reduce((sum, child) => sum + (readRssMiB(child) ?? 0), own);
}

/** User + system CPU time a process has used so far, in ms (fields 14 and 15 of /proc/<pid>/stat). */
export function readCpuMs(pid: number): number | undefined {
  const fields = readStatFields(pid);
  // utime and stime are the 14th and 15th fields of the file
  return fields === undefined
    ? undefined
    : ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** CPU time of a process and all its descendants together, in ms. */
export function readTreeCpuMs(pid: number): number | undefined {
  const own = readCpuMs(pid);
  if (own === undefined) return undefined;
  return listDescendants(pid).reduce((sum, child) => sum + (readCpuMs(child) ?? 0), own);
}

/** USER_HZ: 100 on every Linux this runs on (sysconf(_SC_CLK_TCK)). */
const CLOCK_TICKS_PER_SECOND = 100;

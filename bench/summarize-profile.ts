// Sums the self time of V8 .cpuprofile files (from `node --cpu-prof`) per function and prints the top
// entries. `node --import tsx bench/summarize-profile.ts <file.cpuprofile | folder>... [--top 15] [--since-us T]`
// Compiled locations are mapped back to TypeScript through the .js.map files next to them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  /** Microseconds between consecutive samples (the first is relative to startTime). */
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileEntry {
  /** Function name, `(anonymous)`, or a V8 pseudo-frame such as `(garbage collector)`. */
  name: string;
  /** `path:line` (1-based), relative to the project root or shortened to `node_modules/<pkg>/...`. */
  location: string;
  selfMs: number;
  /** Share of the non-idle sampled time, in percent. */
  percent: number;
}

export interface ProfileSummary {
  files: number;
  /** Sampled time excluding `(idle)`, in milliseconds. */
  busyMs: number;
  idleMs: number;
  top: ProfileEntry[];
}

/** Reads every .cpuprofile under the given files or folders and sums self time per function. */
export function summarizeProfiles(options: {
  paths: readonly string[];
  top: number;
  projectRoot: string;
  /**
   * Skip samples taken before this monotonic time, in microseconds (V8 profile timestamps share
   * the base of `process.hrtime.bigint() / 1000n` on Linux); used to leave start-up out.
   */
  sinceUs?: number;
}): ProfileSummary {
  const files = options.paths.flatMap((path) =>
    statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith('.cpuprofile'))
          .map((name) => join(path, name))
      : [path],
  );
  const totals = new Map<string, { name: string; location: string; selfUs: number }>();
  const locate = createLocator(options.projectRoot);
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const samples = profile.samples ?? [];
    const deltas = profile.timeDeltas ?? [];
    // Sample i is taken at startTime + deltas[0..i] and lasts until sample i+1, i.e. deltas[i+1].
    let timestamp = profile.startTime;
    samples.forEach((id, index) => {
      timestamp += deltas[index] ?? 0;
      const node = byId.get(id);
      if (node === undefined || timestamp < (options.sinceUs ?? 0)) return;
      const { functionName, url, lineNumber, columnNumber } = node.callFrame;
      const name = functionName === '' ? '(anonymous)' : functionName;
      const location = locate(url, lineNumber, columnNumber);
      const key = `${name}\u0000${location}`;
      const entry = totals.get(key) ?? { name, location, selfUs: 0 };
      entry.selfUs += Math.max(0, deltas[index + 1] ?? 0);
      totals.set(key, entry);
    });
  }
  const entries = [...totals.values()];
  const idleUs = entries
    .filter((entry) => entry.name === '(idle)')
    .reduce((sum, entry) => sum + entry.selfUs, 0);
  const busyUs = entries.reduce((sum, entry) => sum + entry.selfUs, 0) - idleUs;
  const top = entries
    .filter((entry) => entry.name !== '(idle)')
    .sort((left, right) => right.selfUs - left.selfUs)
    .slice(0, options.top)
    .map((entry) => ({
      name: entry.name,
      location: entry.location,
      selfMs: Math.round(entry.selfUs / 100) / 10,
      percent: busyUs === 0 ? 0 : Math.round((entry.selfUs / busyUs) * 1000) / 10,
    }));
  return { files: files.length, busyMs: Math.round(busyUs / 1000), idleMs: Math.round(idleUs / 1000), top };
}

/** Maps a profile url + 0-based line/column to a short `path:line`, through source maps when present. */
function createLocator(projectRoot: string): (url: string, line: number, column: number) => string {
  const maps = new Map<string, SourceMap | undefined>();
  const mapFor = (path: string): SourceMap | undefined => {
    if (!maps.has(path)) {
      const mapPath = `${path}.map`;
      maps.set(
        path,
        existsSync(mapPath)
          ? new SourceMap(JSON.parse(readFileSync(mapPath, 'utf8')) as SourceMapPayload)
          : undefined,
      );
    }
    return maps.get(path);
  };
  return (url, line, column) => {
    if (url === '') return '';
    if (!url.startsWith('file://')) return `${url}:${line + 1}`;
    const path = fileURLToPath(url);
    const entry = mapFor(path)?.findEntry(line, column);
    if (entry !== undefined && 'originalSource' in entry) {
      const source = entry.originalSource.startsWith('file://')
        ? fileURLToPath(entry.originalSource)
        : join(path, '..', entry.originalSource);
      return `${shorten(source, projectRoot)}:${entry.originalLine + 1}`;
    }
    return `${shorten(path, projectRoot)}:${line + 1}`;
  };
}

function shorten(path: string, projectRoot: string): string {
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + 1);
  const inside = relative(projectRoot, path);
  return inside.startsWith('..') ? path : inside;
}

export function formatProfileSummary(summary: ProfileSummary): string {
  const lines = [
    `${summary.files} profile(s): ${summary.busyMs} ms busy, ${summary.idleMs} ms idle; top self time:`,
    ...summary.top.map(
      (entry, index) =>
        `${String(index + 1).padStart(3)}. ${entry.selfMs.toFixed(1).padStart(8)} ms ${entry.percent
          .toFixed(1)
          .padStart(5)}%  ${entry.name}  ${entry.location}`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '15' }, 'since-us': { type: 'string' } },
  });
  if (positionals.length === 0) {
    process.stderr.write('usage: summarize-profile.ts <file.cpuprofile | folder>... [--top 15]\n');
    process.exit(2);
  }
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  process.stdout.write(
    `${formatProfileSummary(
      summarizeProfiles({
        paths: positionals,
        top: Number(values.top),
        projectRoot,
        ...(values['since-us'] === undefined ? {} : { sinceUs: Number(values['since-us']) }),
      }),
    )}\n`,
  );
}

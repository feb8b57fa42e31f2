import type { AbuseMeasurement } from './measure-abuse.js';
import type { ProductionStartMemory } from './measure-production-start.js';
import type { Frontier } from './measure-frontier.js';
import type { TokenAccuracy } from './measure-token-accuracy.js';
import type { Corpus, CorpusCosts } from './measure-local-costs.js';
import type { OverheadResult } from './measure-overhead.js';
import type { StreamCapacity, StreamLatencyResult } from './measure-streams.js';
import type { RouteName } from './routes.js';
import type { ProfileSummary } from './summarize-profile.js';

/** RSS readings of one process tree, in MiB. */
export interface MemoryReadings {
  /** Right after start, before any request. */
  startMiB: number;
  /** After the concurrency-1 runs (code warmed up, pools open) and a settle pause: the pre-load level. */
  idleMiB: number;
  /** Largest reading during the throughput and stream runs. */
  peakMiB: number;
  /** After the load and a settle pause. */
  afterMiB: number;
}

/** A measurement that could not be made, and why. */
export interface Unavailable {
  unavailable: string;
}

/** Everything one `npm run bench` measured; report.ts turns it into figures, targets and a table. */
export interface BenchData {
  meta: {
    startedAt: string;
    durationSeconds: number;
    quick: boolean;
    node: string;
    cpus: number;
    /** 1-minute load average at start and end: the machine is shared. */
    loadAverage: { start: number; end: number };
    router: string;
    notes: string[];
  };
  costs: Record<Corpus, CorpusCosts>;
  /** autotier's token counts of the eval prompts against the exact reference encoders. */
  tokenAccuracy?: Record<string, TokenAccuracy>;
  /** Concurrency 1 against the zero-latency backend, and against the realistic one. */
  overhead: { zero: OverheadResult; realistic: OverheadResult };
  frontier: {
    durationSeconds: number;
    autotier: Frontier;
    portkey?: Frontier;
    autotierWorkers2: Frontier | Unavailable;
  };
  streams: {
    latency: StreamLatencyResult;
    latencyStreams: number;
    startIntervalMs: number;
    capacity: Partial<Record<RouteName, StreamCapacity>>;
    levels: readonly number[];
  };
  memory: {
    autotier: MemoryReadings;
    portkey?: MemoryReadings;
    /** `node dist/main.js` on the default table and Portkey, each idle after 10 s, before the load. */
    productionStart?: ProductionStartMemory | Unavailable;
  };
  /** 1 MB hostile bodies beside a normal-traffic baseline. */
  abuse?: AbuseMeasurement | Unavailable;
  profile?: ProfileSummary | Unavailable;
}

import type { FaultSpec } from '../../sim/index.js';
import type { AttemptRequest, Upstream } from '../../src/upstream/upstream.js';

/**
 * The real undici upstream, plus two things the soak needs.
 *
 * 1. Per-request faults. autotier forwards no client header upstream (`x-sim-fault` included), so the
 *    fault a client chose for its request reaches the simulator the other way the simulator reads one:
 *    a `model@fault;key=value` suffix on the upstream body's model name. The client registers the fault
 *    under its plan id, which its prompt carries as `[soak-N]` (autotier sends deployments its own
 *    request id, not the client's); only the first attempt carries it, as with a transient fault of
 *    one backend, so a failover can succeed.
 * 2. An exact count of upstream attempts per plan id, failed requests included.
 */
export interface FaultInjectingUpstream extends Upstream {
  /** Registers the fault of a request's first attempt. */
  plan(requestId: string, fault: FaultSpec | undefined): void;
  /** Upstream calls made for a request so far; forgets the request (call once it has ended). */
  takeAttempts(requestId: string): number;
}

export function toFaultText(fault: FaultSpec): string {
  const params = Object.entries(fault.params ?? {}).map(([key, value]) => `;${key}=${value}`);
  return `${fault.name}${params.join('')}`;
}

/** The soak plan id (`soak-N`) a request's prompt carries, or the attempt's request id. */
function toPlanId(request: AttemptRequest): string {
  return /\[(soak-\d+)\]/.exec(request.body)?.[1] ?? request.requestId;
}

function withFault(body: string, fault: FaultSpec): string {
  const parsed = JSON.parse(body) as { model: string };
  return JSON.stringify({ ...parsed, model: `${parsed.model}@${toFaultText(fault)}` });
}

export function createFaultInjectingUpstream(inner: Upstream): FaultInjectingUpstream {
  const faults = new Map<string, FaultSpec>();
  const attempts = new Map<string, number>();
  return {
    plan(requestId, fault) {
      if (fault !== undefined) faults.set(requestId, fault);
    },
    takeAttempts(requestId) {
      const count = attempts.get(requestId) ?? 0;
      attempts.delete(requestId);
      faults.delete(requestId);
      return count;
    },
    open(request: AttemptRequest) {
      const id = toPlanId(request);
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      const fault = faults.get(id);
      faults.delete(id);
      return inner.open(fault === undefined ? request : { ...request, body: withFault(request.body, fault) });
    },
    close: () => inner.close(),
  };
}

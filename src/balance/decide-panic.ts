/** A deployment of the chain passed over because it is cooling down (or another request holds its probe). */
export interface CoolingCandidate {
  id: string;
  /** Epoch ms when its cooldown ends; undefined when it has already been lifted. */
  until: number | undefined;
}

/** Skip outcomes that say a deployment is benched, as opposed to full or out of quota. */
export const COOLING_OUTCOMES: ReadonlySet<string> = new Set(['COOLING_DOWN', 'PROBE_IN_PROGRESS']);

/**
 * Envoy's panic threshold at its limit: when every deployment a request could use is cooling down,
 * one is tried anyway rather than answering 503 at once, since a bench may come from a few bad
 * requests while the deployment serves. The one whose cooldown ends soonest (a lifted one first; the
 * chain's order breaks ties). Undefined when none is cooling down.
 */
export function decidePanic(cooling: readonly CoolingCandidate[]): string | undefined {
  let chosen: CoolingCandidate | undefined;
  for (const candidate of cooling)
    if (chosen === undefined || (candidate.until ?? 0) < (chosen.until ?? 0)) chosen = candidate;
  return chosen?.id;
}

import type { ClassificationDecision } from '../../src/classify/decision.js';
import type { Tier } from '../../src/shared/tier.js';
import type { EvalCase, Facet } from '../../eval/eval-case.js';
import type { ScoredCase } from '../../eval/scored-case.js';

export interface CaseSpec {
  gold: Tier;
  predicted: Tier;
  acceptable?: Tier[];
  id?: string;
  line?: number;
  prompt?: string;
  facets?: Partial<Record<Facet, string>>;
  decision?: Partial<ClassificationDecision>;
  totalMs?: number;
}

/** A scored case for metric tests; `line` defaults to the position a caller passes as `id` order. */
export function toScoredCase(spec: CaseSpec, index = 0): ScoredCase {
  const line = spec.line ?? index + 1;
  const evalCase: EvalCase = {
    id: spec.id ?? `case-${line}`,
    line,
    request: { messages: [{ role: 'user', content: spec.prompt ?? `prompt ${line}` }] },
    label: spec.gold,
    acceptable: [spec.gold, ...(spec.acceptable ?? [])],
    facets: spec.facets ?? {},
  };
  return {
    case: evalCase,
    gold: spec.gold,
    predicted: spec.predicted,
    acceptable: evalCase.acceptable,
    decision: {
      tier: spec.predicted,
      cause: 'learned',
      confidence: 0.5,
      signals: [],
      needsVision: false,
      stageLatencyMs: { heuristic: 0.1, learned: 0.2 },
      llmCalled: false,
      ...spec.decision,
    },
    totalMs: spec.totalMs ?? 0.3,
  };
}

export function toScoredCases(specs: readonly CaseSpec[]): ScoredCase[] {
  return specs.map((spec, index) => toScoredCase(spec, index));
}

/** Shorthand: `pairs('SIMPLE>MODERATE', ...)` is gold SIMPLE predicted MODERATE. */
export function pairs(...specs: string[]): ScoredCase[] {
  return toScoredCases(
    specs.map((spec) => {
      const [gold, predicted] = spec.split('>') as [Tier, Tier];
      return { gold, predicted };
    }),
  );
}

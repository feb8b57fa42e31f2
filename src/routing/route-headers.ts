import type { ExecuteResult } from '../balance/balancer.js';
import { toTierChangeLabel } from '../shared/tier-change.js';
import type { RouteDecision } from './decide-route.js';

export interface RouteHeadersInput {
  decision: RouteDecision;
  result: ExecuteResult;
  /** Time spent inside autotier, upstream waits excluded, ms. */
  overheadMs: number;
  requestId: string;
}

/** A short form of the decision for x-autotier-reason: the cause and tier, then every rule. */
export function toReasonHeader(decision: RouteDecision): string {
  const rules = decision.rules.map(toTierChangeLabel);
  return [`${decision.cause}:${decision.complexity ?? decision.plan.tier}`, ...rules].join(', ');
}

/** The x-autotier-* headers every routed response carries. */
export function toRouteHeaders(input: RouteHeadersInput): Record<string, string> {
  const { decision, result } = input;
  const headers: Record<string, string> = {
    'x-request-id': input.requestId,
    'x-autotier-tier': decision.plan.tier,
    'x-autotier-deployment': result.deployment.id,
    'x-autotier-attempts': String(result.attempts.filter((attempt) => attempt.called).length),
    'x-autotier-fallbacks': String(result.fallbacks),
    'x-autotier-overhead-ms': Math.max(0, input.overheadMs).toFixed(2),
    'x-autotier-reason': toReasonHeader(decision),
  };
  if (decision.complexity !== undefined) headers['x-autotier-complexity'] = decision.complexity;
  headers['x-autotier-classifier'] = decision.cause;
  if (decision.confidence !== undefined) headers['x-autotier-confidence'] = decision.confidence.toFixed(3);
  return headers;
}

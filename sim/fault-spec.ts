/**
 * Every fault the simulator can inject. Each is applied in one place: before any reply byte in
 * request-faults.ts, as a first-token delay in stream-timing.ts, mid-stream in stream-script.ts,
 * and for non-stream replies in respond.ts.
 */
export const FAULT_NAMES = [
  'rate_limit',
  'rate_limit_no_retry_after',
  'error_500_once',
  'error_503',
  'reset_before_headers',
  'no_response',
  'headers_then_nothing',
  'slow_first_token',
  'cut_mid_stream',
  'stall_mid_stream',
  'malformed_chunk',
  'no_done',
  'context_length',
  'bad_request',
  'flapping',
  'empty_chunks',
] as const;

export type FaultName = (typeof FAULT_NAMES)[number];

/** A fault to inject, e.g. `{ name: 'cut_mid_stream', params: { after: 2 } }`. */
export interface FaultSpec {
  name: FaultName;
  params?: Record<string, number | string>;
}

export function isFaultName(value: string): value is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(value);
}

/**
 * Parses `name;key=value;key=value` (the `x-sim-fault` header and the `model@fault` suffix).
 * Numeric values become numbers. Returns undefined for an unknown fault name.
 */
export function parseFaultSpec(text: string): FaultSpec | undefined {
  const [rawName = '', ...pairs] = text.split(';');
  const name = rawName.trim();
  if (!isFaultName(name)) return undefined;
  if (pairs.length === 0) return { name };
  const params: Record<string, number | string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator <= 0) continue;
    const key = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    const asNumber = Number(value);
    params[key] = value !== '' && Number.isFinite(asNumber) ? asNumber : value;
  }
  return { name, params };
}

/** Splits `served-name@fault;k=v` into the served name and the fault; no known fault keeps the name whole. */
export function splitModelFault(model: string): { model: string; fault?: FaultSpec } {
  const at = model.lastIndexOf('@');
  if (at < 0) return { model };
  const fault = parseFaultSpec(model.slice(at + 1));
  return fault === undefined ? { model } : { model: model.slice(0, at), fault };
}

/** A numeric fault parameter, or the fallback when absent or not a number. */
export function toFaultNumber(fault: FaultSpec, key: string, fallback: number): number {
  const value = fault.params?.[key];
  if (typeof value === 'number') return value;
  return fallback;
}

/** A string fault parameter, or the fallback when absent. */
export function toFaultString(fault: FaultSpec, key: string, fallback: string): string {
  const value = fault.params?.[key];
  return value === undefined ? fallback : String(value);
}

import type { IncomingHttpHeaders } from 'node:http';
import { parseFaultSpec, splitModelFault, type FaultSpec } from './fault-spec.js';

export interface FaultSelection {
  /** The served model name with any `@fault` suffix removed. */
  model: string;
  fault: FaultSpec | undefined;
  /** The raw `x-sim-fault` header when it names no known fault. */
  unknownHeader?: string;
}

/** Precedence: the `x-sim-fault` header, then the `model@fault` suffix, then the backend-wide fault. */
export function selectFault(
  headers: IncomingHttpHeaders,
  requestedModel: string,
  backendFault: FaultSpec | undefined,
): FaultSelection {
  const split = splitModelFault(requestedModel);
  const header = headers['x-sim-fault'];
  const headerText = Array.isArray(header) ? header[0] : header;
  if (headerText !== undefined && headerText !== '') {
    const fault = parseFaultSpec(headerText);
    if (fault === undefined) return { model: split.model, fault: undefined, unknownHeader: headerText };
    return { model: split.model, fault };
  }
  return { model: split.model, fault: split.fault ?? backendFault };
}

/** The `x-sim-tokens` header as a positive integer, else undefined. */
export function readTokensHeader(headers: IncomingHttpHeaders): number | undefined {
  const value = Number(headers['x-sim-tokens']);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

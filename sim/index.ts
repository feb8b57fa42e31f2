export { createSimulatedBackend, DEFAULT_CONTEXT_WINDOW } from './create-simulated-backend.js';
export { createSimulatedFleet, type SimFleet } from './create-simulated-fleet.js';
export { DEMO_FLEET, type DemoBackendOptions } from './demo-fleet.js';
export { FAULT_NAMES, isFaultName, parseFaultSpec } from './fault-spec.js';
export type {
  FaultName,
  FaultSpec,
  ReasoningMode,
  Responder,
  ResponderReply,
  ResponderRequest,
  SimBackend,
  SimBackendOptions,
  SimLatency,
  SimStats,
} from './types.js';

import { BENCH_MODEL, BODIES, ROUTER_MODEL, type BackendId } from './bench-fleet.js';
import type { Target } from './load.js';
import { toPortkeyConfig } from './portkey.js';

/**
 * The ways a request reaches a backend: straight to the simulator, through autotier, through
 * Portkey, or through a reference proxy with no routing logic (nginx; the Node floor proxy).
 */
export type RouteName = 'direct' | 'autotier' | 'autotier-auto' | 'portkey' | 'nginx' | 'node-floor';

export interface NamedTarget extends Target {
  name: RouteName;
}

export interface RouteBases {
  /** Simulator base URL of each backend. */
  simulator: Record<BackendId, string>;
  autotier: string;
  portkey: string | undefined;
  /** nginx origin (`http://127.0.0.1:N`), each backend under `/<backend id>/`. */
  nginx: string | undefined;
  /** Node floor proxy origin, each backend under `/<backend id>/`. */
  nodeFloor: string | undefined;
}

/**
 * Targets for one backend. autotier is asked for `tier:SIMPLE` or `auto` (zero-latency backend) or
 * for the backend's deployment id; Portkey forwards the served model name with a
 * single-target config pointing at that backend; the reference proxies forward it by path prefix.
 */
export function toTargets(bases: RouteBases, backend: BackendId): NamedTarget[] {
  const body = BODIES[backend];
  const targets: NamedTarget[] = [
    {
      name: 'direct',
      url: `${bases.simulator[backend]}/chat/completions`,
      body: { ...body, model: BENCH_MODEL },
    },
    {
      name: 'autotier',
      url: `${bases.autotier}/chat/completions`,
      body: { ...body, model: ROUTER_MODEL[backend] },
    },
  ];
  if (backend === 'zero')
    targets.push({
      name: 'autotier-auto',
      url: `${bases.autotier}/chat/completions`,
      body: { ...body, model: 'auto' },
    });
  if (bases.portkey !== undefined)
    targets.push({
      name: 'portkey',
      url: `${bases.portkey}/chat/completions`,
      headers: { 'x-portkey-config': JSON.stringify(toPortkeyConfig(bases.simulator[backend])) },
      body: { ...body, model: BENCH_MODEL },
    });
  for (const [name, origin] of [
    ['nginx', bases.nginx],
    ['node-floor', bases.nodeFloor],
  ] as const)
    if (origin !== undefined)
      targets.push({
        name,
        url: `${origin}/${backend}/v1/chat/completions`,
        body: { ...body, model: BENCH_MODEL },
      });
  return targets;
}

export function pick(targets: readonly NamedTarget[], name: RouteName): NamedTarget | undefined {
  return targets.find((target) => target.name === name);
}

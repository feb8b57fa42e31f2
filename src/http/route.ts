import type { Access, Answer, RouteInput } from '../endpoints/endpoint.js';
import type { EndpointName } from '../observe/request-summary.js';

/** One endpoint (or a dashboard file) bound to its services: the edge checks access, reads the body and maps errors for all of them. */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /**
   * True when `path` (ending in `/`) is a prefix: the route takes every longer path below it, slashes
   * included (`/v1/models/` + a model id such as `Qwen/Qwen3-8B`). Exact paths are looked up first.
   */
  prefix?: boolean;
  /** Its name in logs and metrics. */
  endpoint: EndpointName;
  access: Access;
  /** Whether the edge reads a JSON body (after the key check) before calling `handle`. */
  readsBody: boolean;
  handle(input: RouteInput): Promise<Answer> | Answer;
}

/**
 * The route for a request; else the methods its path takes (undefined when no route has the path).
 * `endpoint` names the path in logs and metrics either way (`unknown` when no route has it).
 */
export interface RouteMatch {
  route: Route | undefined;
  allow: string[] | undefined;
  endpoint: EndpointName;
}

const NO_ROUTE: RouteMatch = { route: undefined, allow: undefined, endpoint: 'unknown' };

/**
 * Looks routes up by exact path (one trailing slash is ignored when only the bare path is declared)
 * and method; HEAD is answered by the GET route. Throws when a method and path are declared twice.
 */
export function createRouteIndex(routes: readonly Route[]): (method: string, path: string) => RouteMatch {
  const byPath = new Map<string, Map<string, Route>>();
  const byPrefix = new Map<string, Map<string, Route>>();
  for (const route of routes) {
    if (route.prefix === true) {
      const methods = byPrefix.get(route.path) ?? new Map<string, Route>();
      if (methods.has(route.method))
        throw new Error(`route ${route.method} ${route.path}* is declared twice`);
      byPrefix.set(route.path, methods.set(route.method, route));
      continue;
    }
    const methods = byPath.get(route.path) ?? new Map<string, Route>();
    if (methods.has(route.method)) throw new Error(`route ${route.method} ${route.path} is declared twice`);
    byPath.set(route.path, methods.set(route.method, route));
  }
  return (method, path) => {
    const methods =
      byPath.get(path) ??
      (path.length > 1 && path.endsWith('/') ? byPath.get(path.slice(0, -1)) : undefined) ??
      toPrefixMethods(byPrefix, path);
    if (methods === undefined) return NO_ROUTE;
    const route = methods.get(method === 'HEAD' ? 'GET' : method);
    if (route !== undefined) return { route, allow: undefined, endpoint: route.endpoint };
    const allow = [...methods.keys()];
    return {
      route: undefined,
      allow: allow.includes('GET') ? [...allow, 'HEAD'] : allow,
      endpoint: [...methods.values()][0]?.endpoint ?? 'unknown',
    };
  };
}

/** The methods of the prefix route a path lies below (strictly longer than the prefix), if any. */
function toPrefixMethods(
  byPrefix: ReadonlyMap<string, Map<string, Route>>,
  path: string,
): Map<string, Route> | undefined {
  for (const [prefix, methods] of byPrefix)
    if (path.length > prefix.length && path.startsWith(prefix)) return methods;
  return undefined;
}

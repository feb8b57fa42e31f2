/**
 * The kinds of upstream call a routed endpoint makes, and the OpenAI path each is sent to (below a
 * deployment's base URL). The client-facing paths are declared by the endpoint modules (src/endpoints).
 */
export const UPSTREAM_PATHS = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  responses: '/responses',
} as const;

export type UpstreamCall = keyof typeof UPSTREAM_PATHS;
export type UpstreamPath = (typeof UPSTREAM_PATHS)[UpstreamCall];

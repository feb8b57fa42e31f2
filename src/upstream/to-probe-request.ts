import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { ProbeKind } from './health-check.js';

/** One probe as an HTTP request. */
export interface ProbeRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** `text` without its trailing slashes; a loop, as a trailing-slash regex backtracks quadratically. */
function trimSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end -= 1;
  return text.slice(0, end);
}

/** The server root of a base URL: its path without a trailing `/v1` (vLLM serves /health there). */
function toServerRoot(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = trimSlashes(url.pathname);
  return `${url.origin}${path.endsWith('/v1') ? path.slice(0, -3) : path}`;
}

/**
 * The request a probe kind sends: `health` = GET /health at the server root
 * (http://host:8000/v1 -> http://host:8000/health), `models` = GET {base_url}/models, `chat` = a
 * one-token, non-streamed chat completion for the deployment's served model name. The API key, when
 * the deployment has one, goes in the Authorization header of each.
 */
export function toProbeRequest(deployment: DeploymentConfig, kind: ProbeKind, apiKey?: string): ProbeRequest {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey !== undefined) headers['authorization'] = `Bearer ${apiKey}`;
  const base = trimSlashes(deployment.base_url);
  switch (kind) {
    case 'health':
      return { url: `${toServerRoot(deployment.base_url)}/health`, method: 'GET', headers };
    case 'models':
      return { url: `${base}/models`, method: 'GET', headers };
    case 'chat':
      return {
        url: `${base}/chat/completions`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: deployment.model,
          messages: [{ role: 'user', content: 'ping' }],
          max_tokens: 1,
          stream: false,
        }),
      };
  }
}

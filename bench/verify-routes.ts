import type { NamedTarget } from './routes.js';

/**
 * Sends one request per target before anything is measured: every route must answer 200, streams
 * must carry the expected number of content chunks, and autotier must send `auto` and `tier:` requests
 * to the backend the bench expects (checked with the x-autotier-deployment response header).
 */
export async function verifyTargets(
  targets: readonly NamedTarget[],
  expectation: { deployment: string; contentChunks?: number },
): Promise<void> {
  for (const target of targets) {
    const response = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body: JSON.stringify(target.body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    const where = `${target.name} ${target.url}`;
    if (response.status !== 200)
      throw new Error(`${where} answered ${response.status}: ${text.slice(0, 400)}`);
    const deployment = response.headers.get('x-autotier-deployment');
    if (target.name.startsWith('autotier') && deployment !== expectation.deployment)
      throw new Error(
        `${where} was routed to ${String(deployment)} (tier ${String(response.headers.get('x-autotier-tier'))}), ` +
          `not ${expectation.deployment}; the bench table or the classifier changed`,
      );
    const chunks = countContentChunks(text);
    if (expectation.contentChunks !== undefined && chunks !== expectation.contentChunks)
      throw new Error(`${where} streamed ${chunks} content chunks, expected ${expectation.contentChunks}`);
  }
}

function countContentChunks(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:') || line.includes('[DONE]')) continue;
    const event = JSON.parse(line.slice(5)) as { choices?: { delta?: { content?: unknown } }[] };
    const content = event.choices?.[0]?.delta?.content;
    if (typeof content === 'string' && content.length > 0) count += 1;
  }
  return count;
}

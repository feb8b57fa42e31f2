import type { Logger } from '../shared/logger.js';
import type { RequestObserver } from './request-summary.js';

/**
 * One log line per request, routed or rejected (at error level for a 5xx), and one per upstream
 * attempt (no prompt or completion text).
 */
export function createLogObserver(logger: Logger): RequestObserver {
  return {
    onAttempt(attempt) {
      if (!attempt.called) {
        logger.debug('candidate skipped', {
          request_id: attempt.requestId,
          deployment: attempt.deploymentId,
          reason: attempt.outcome,
        });
        return;
      }
      logger.info('upstream attempt', {
        request_id: attempt.requestId,
        tier: attempt.tier,
        deployment: attempt.deploymentId,
        attempt: attempt.attempt,
        outcome: attempt.outcome,
        fallback: attempt.fallback,
        duration_ms: Math.round(attempt.durationMs),
      });
    },
    onRequest(summary) {
      logger[summary.status >= 500 ? 'error' : 'info']('request', {
        request_id: summary.requestId,
        client_request_id: summary.clientRequestId,
        key: summary.keyName,
        outcome: summary.outcome,
        method: summary.method,
        path: summary.path,
        endpoint: summary.endpoint,
        stream: summary.stream,
        tier: summary.tier,
        complexity: summary.complexity,
        cause: summary.cause,
        confidence: summary.confidence === undefined ? undefined : Number(summary.confidence.toFixed(3)),
        signals: summary.signals,
        rules: summary.rules,
        deployment: summary.deployment,
        status: summary.status,
        error_code: summary.errorCode,
        error: summary.errorMessage,
        attempts: summary.attempts,
        fallbacks: summary.fallbacks,
        ttft_ms: summary.ttftMs === undefined ? undefined : Math.round(summary.ttftMs),
        duration_ms: Math.round(summary.durationMs),
        prompt_tokens: summary.promptTokens,
        prompt_token_status: summary.promptTokenStatus,
        completion_tokens: summary.completionTokens,
        token_status: summary.tokenStatus,
        ...(summary.content === undefined
          ? {}
          : { prompt: summary.content.prompt, completion: summary.content.completion }),
      });
    },
  };
}

import type { Next } from 'koa';
import type { Logger } from '../logger.js';
import type { ClinicContext } from '../state.js';

/**
 * One JSON line per request: request id, method, route template, status and duration. The route
 * template (`/patients/:patient_id/documents`) is logged rather than the path, and never a body,
 * so no patient data reaches the log.
 */
export function logRequests(logger: Logger) {
  return async function logRequestsMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      logger.info({
        event: 'request',
        request_id: ctx.state.requestId,
        method: ctx.method,
        route: (ctx as ClinicContext & { _matchedRoute?: string })._matchedRoute ?? null,
        status: ctx.status,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    }
  };
}

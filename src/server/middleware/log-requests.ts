import type { Next } from 'koa';
import type { Logger } from '../../logger.js';
import { CLIENT_CLOSED_REQUEST } from './handle-errors.js';
import type { ClinicContext } from '../api/state.js';

/**
 * One JSON line per request: request id, method, route template, status and duration. The route
 * template (`/patients/:patient_id/documents`) is logged rather than the path, and never a body,
 * so no patient data reaches the log. A request whose client disconnected before sending all of
 * it is logged as `request_aborted` with status 499.
 */
export function logRequests(logger: Logger) {
  return async function logRequestsMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      logger.info({
        event: ctx.status === CLIENT_CLOSED_REQUEST ? 'request_aborted' : 'request',
        request_id: ctx.state.requestId,
        method: ctx.method,
        route: (ctx as ClinicContext & { _matchedRoute?: string })._matchedRoute ?? null,
        status: ctx.status,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    }
  };
}

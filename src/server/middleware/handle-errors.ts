import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import { errors, refusalBody, ValidationError } from '../../errors.js';
import { classifyError, needsLogging } from '../../domain/classify-error.js';
import type { Logger } from '../../logger.js';
import type { ClinicContext } from '../api/state.js';
import { answerJson } from '../api/json-answer.js';

/** A client's request id is echoed only when it is short and plain, so it is safe in logs and headers. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The status logged for a request whose client went away before its answer (nginx's convention;
 * nothing is sent, since nobody is listening).
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** Whether `thrown` is node:http reporting that the client of `ctx` closed its connection mid-request. */
export function clientWentAway(ctx: ClinicContext, thrown: unknown): boolean {
  const code = (thrown as NodeJS.ErrnoException | null)?.code;
  return (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') && ctx.req.socket.destroyed;
}

/**
 * Mounted first: gives every response an X-Request-Id and renders every error in the shapes of
 * decisions.md §1. A 500 says nothing of its cause to the client; the cause is logged with the
 * request id instead. A client that disconnects mid-request is logged as aborted, not as an error.
 */
export function handleErrors(logger: Logger) {
  return async function handleErrorsMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const offered = ctx.get('X-Request-Id');
    ctx.state.requestId = SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
    } catch (thrown) {
      if (clientWentAway(ctx, thrown)) {
        ctx.status = CLIENT_CLOSED_REQUEST;
        return;
      }
      if (needsLogging(thrown)) {
        logger.error({
          event: classifyError(thrown) === undefined ? 'unhandled_error' : 'storage_fault',
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
        });
      }
      const error = classifyError(thrown) ?? errors.internal();
      // A refusal holds for this request only: no cache may answer the next one with it (and a
      // refusal of an endpoint that takes a key is no-store like its answers, clinic-api-1.2.md).
      ctx.set('Cache-Control', 'no-store');
      if (error instanceof ValidationError) {
        ctx.status = 422;
        answerJson(ctx, { detail: error.issues });
        return;
      }
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      answerJson(ctx, refusalBody(error));
    }
  };
}

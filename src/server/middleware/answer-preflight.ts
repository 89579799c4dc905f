import type Router from '@koa/router';
import type { Next } from 'koa';
import { errors } from '../../errors.js';
import type { Operation } from '../api/operation.js';
import type { ClinicState, ClinicContext } from '../api/state.js';

/** How long a browser may keep a preflight's answer: the routes change only with the program. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The request headers an operation reads: its key, its body's type, its declared headers, and a request id. */
function requestHeadersOf(op: Operation): string[] {
  return [
    ...(op.scope === undefined ? [] : ['Authorization']),
    ...(op.body === undefined ? [] : ['Content-Type']),
    ...(op.headerFields ?? []).map((field) => field.name.replace(/(^|-)[a-z]/g, (letter) => letter.toUpperCase())),
    ...(op.result.kind === 'static' || (op.result.kind === 'download' && op.result.made === undefined) ? ['If-None-Match'] : []),
    'X-Request-Id',
  ];
}

/**
 * Answers a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed
 * origin (guardHostAndOrigin set `crossOrigin`) with 204: the methods the path takes and the
 * request headers of the operation asked for. Needs no key (browsers never send one with a
 * preflight). A path the API does not have is 404 and a method the path does not take is 405,
 * as for any request; every other `OPTIONS` goes on to the routes (and their 405).
 */
export function answerPreflight(router: Router<ClinicState>, operations: readonly Operation[]) {
  const headersByOperation = new Map(operations.map((op) => [op.operationId, requestHeadersOf(op).join(', ')]));
  return async function answerPreflightMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const requested = ctx.get('Access-Control-Request-Method');
    if (ctx.method !== 'OPTIONS' || ctx.state.crossOrigin === undefined || requested === '') return next();
    const layers = router.match(ctx.path, requested.toUpperCase());
    const methods = [...new Set(layers.path.flatMap((layer) => layer.methods))].sort();
    if (methods.length === 0) throw errors.notFound();
    const operation = layers.pathAndMethod.find((layer) => headersByOperation.has(layer.name ?? ''));
    if (operation === undefined) throw errors.methodNotAllowed(methods);
    ctx.status = 204;
    ctx.set('Access-Control-Allow-Methods', methods.join(', '));
    ctx.set('Access-Control-Allow-Headers', headersByOperation.get(operation.name ?? '')!);
    ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    ctx.vary('Access-Control-Request-Method');
    ctx.vary('Access-Control-Request-Headers');
  };
}

import Router, { type RouterMiddleware } from '@koa/router';
import { API_PREFIX } from '../config.js';
import { authorize } from '../middleware/authorize.js';
import { noStore } from '../middleware/no-store.js';
import { receiveDocumentUpload } from '../middleware/document-upload.js';
import { jsonBody } from '../middleware/json-body.js';
import { receiveDeskCommand } from '../middleware/desk-command-body.js';
import { requireModule } from '../middleware/require-module.js';
import { answerJson } from './json-answer.js';
import type { Operation, OperationDeps } from './operation.js';
import type { ClinicState } from './state.js';
import type { Page } from '../../domain/pagination.js';

/** The name of a `name=value` query parameter as sent, decoded; undefined when it cannot be decoded. */
function parameterName(parameter: string): string | undefined {
  try {
    return decodeURIComponent((parameter.split('=')[0] ?? '').replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The Link header of the page after `cursor` (clinic-api-1.1.md, RFC 8288): the request's own
 * path and every other query parameter as sent, plus `after`.
 */
export function nextPageLink(path: string, querystring: string, cursor: string): string {
  const kept = querystring.split('&').filter((parameter) => parameter !== '' && parameterName(parameter) !== 'after');
  return `<${path}?${[...kept, `after=${encodeURIComponent(cursor)}`].join('&')}>; rel="next"`;
}

/** `/invoices/{invoice_id}/payments` → `/invoices/:invoice_id/payments`. */
const routePath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

/**
 * The middleware chain of one operation, in the order of checks of decisions.md §1: the key, its
 * own limit per minute and its scope (401, 429, 403), the module (403), the body (415, 413, then the handler's 422s). The
 * handler runs its database work through the server's commit groups (OperationDeps.commits).
 */
function chainOf(op: Operation, deps: OperationDeps): RouterMiddleware<ClinicState>[] {
  const { db, config, commits, keyLimits } = deps;
  const chain: RouterMiddleware<ClinicState>[] = [];
  // A desk PC's join answers its token: stored by no cache, as every keyed answer.
  if (op.operationId === 'joinDesk') chain.push(noStore);
  if (op.scope !== undefined || op.credentials !== undefined)
    chain.push(
      noStore,
      authorize(db, commits, op.credentials ?? 'key-or-session', op.scope, keyLimits, op.roles, op.touchesSession ?? true),
    );
  if (op.module) chain.push(requireModule(db, op.module));
  // A JSON body that may come with files (a desk PC's command) may come as a form instead.
  if (op.body?.kind === 'json') chain.push(op.body.files === undefined ? jsonBody(config.jsonBodyLimitBytes) : receiveDeskCommand(config));
  // The one multipart form of the API is the document upload.
  if (op.body?.kind === 'multipart') chain.push(receiveDocumentUpload(db, commits, config));
  const handle = op.handler(deps);
  const result = op.result;
  chain.push(async function answer(ctx) {
    const body = await handle(ctx);
    if (result.kind === 'empty') ctx.status = 204;
    if (result.kind !== 'model') return;
    ctx.status = result.unavailable?.when(body) === true ? 503 : result.status;
    if (!result.paged) {
      answerJson(ctx, body);
      return;
    }
    const page = body as Page<unknown>;
    answerJson(ctx, page.items);
    if (page.next !== null) ctx.set('Link', nextPageLink(ctx.path, ctx.querystring, page.next));
  });
  return chain;
}

/** One router serving every operation of `deps.operations` from its declaration. */
export function operationsRouter(deps: OperationDeps): Router<ClinicState> {
  // Paths exactly as declared (decisions.md §1: no such route is a 404): @koa/router would also
  // answer /DOCTORS and /doctors/, paths the interface does not have.
  const router = new Router<ClinicState>({ prefix: API_PREFIX, sensitive: true, strict: true });
  for (const op of deps.operations)
    router.register(routePath(op.path), [op.method.toUpperCase()], chainOf(op, deps), { name: op.operationId });
  return router;
}

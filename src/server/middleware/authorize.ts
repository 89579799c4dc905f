import type { Next } from 'koa';
import type { Db } from '../../db/open-database.js';
import { authenticate, requireScope, type Scope } from '../../domain/api-keys.js';
import type { ClinicContext } from '../state.js';

/** Requires a valid, unrevoked API key holding `scope` (401, then 403 FORBIDDEN). */
export function authorize(db: Db, scope: Scope) {
  return async function authorizeMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const principal = authenticate(db, ctx.get('Authorization') || undefined);
    requireScope(principal, scope);
    ctx.state.principal = principal;
    await next();
  };
}

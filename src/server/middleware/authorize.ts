import type { Next } from 'koa';
import type { Db } from '../../db/open-database.js';
import { authenticate, requireScope, type Scope } from '../../domain/api-keys.js';
import { errors } from '../../errors.js';
import type { KeyRateLimits } from '../throttles/key-rate-limits.js';
import type { ClinicContext } from '../api/state.js';

/**
 * Requires a valid, unrevoked API key (401) within its own requests per minute, if it has a
 * limit (429 TOO_MANY_REQUESTS with Retry-After to the minute's end), holding `scope` (403
 * FORBIDDEN). The limit is counted before the scope, so that every request a key makes counts,
 * its refused ones too (docs/design-choices.md, "API keys: scopes, the first key, rate limits").
 */
export function authorize(db: Db, scope: Scope, keyLimits: KeyRateLimits) {
  return async function authorizeMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const principal = authenticate(db, ctx.get('Authorization') || undefined);
    const limit = principal.rateLimitPerMinute;
    if (limit !== null) {
      const waitMs = keyLimits.take(principal.keyId, limit);
      if (waitMs > 0) throw errors.keyRateLimited(waitMs, limit);
    }
    requireScope(principal, scope);
    ctx.state.principal = principal;
    await next();
  };
}

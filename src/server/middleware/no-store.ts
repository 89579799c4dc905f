import type { Next } from 'koa';
import type { ClinicContext } from '../api/state.js';

/**
 * `Cache-Control: no-store` on every answer of an endpoint that takes a key (clinic-api-1.2.md,
 * "Network"), its refusals included: patient data must not stay in a browser's or a proxy's
 * cache, where the next user of the PC could read it. Set before anything can refuse, so the
 * error answers carry it too.
 */
export async function noStore(ctx: ClinicContext, next: Next): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  await next();
}

import type Router from '@koa/router';
import { errors } from '../../errors.js';
import type { ClinicContext } from '../api/state.js';

/**
 * Mounted after every router: a request no route answered is a JSON 404, or a 405 with an
 * `Allow` header when the path exists under other methods. Runs before any authentication,
 * so an unknown route is a 404 with or without a key (decisions.md §1, order of checks).
 */
export function routeFallback(routers: readonly Router[]) {
  return async function routeFallbackMiddleware(ctx: ClinicContext): Promise<void> {
    const allowed = new Set<string>();
    for (const router of routers) {
      for (const layer of router.match(ctx.path, ctx.method).path) {
        for (const method of layer.methods) allowed.add(method);
      }
    }
    if (allowed.size === 0) throw errors.notFound();
    throw errors.methodNotAllowed([...allowed].sort());
  };
}

import type { Next } from 'koa';
import { AppError, classifyError, errors } from '../../domain/errors.js';
import { clientAddress } from '../api-caller.js';
import type { FailedKeyThrottle } from '../failed-key-throttle.js';
import type { ClinicContext } from '../state.js';

/**
 * The PC's own addresses, as the socket gives them (an IPv4 client of a dual-stack socket as
 * `::ffff:127.0.0.1`): never throttled, since a key is 256 random bits (guessing is hopeless)
 * and the clinic's own integrations and tests must not lock themselves out. The rest of
 * 127.0.0.0/8 is throttled like any other address (clinic-api-1.2.md, "Failed keys").
 */
const OWN_ADDRESSES: ReadonlySet<string> = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * "Failed keys" (clinic-api-1.2.md, "Network"), on every request whatever its path: a client
 * address blocked by `throttle` is answered 429 TOO_MANY_REQUESTS with Retry-After; every answer
 * 401 to an address other than the PC's own is recorded. Mounted right after handleErrors, so it
 * sees each refusal as it is thrown and its 429 is rendered like every coded error.
 */
export function throttleFailedKeys(throttle: FailedKeyThrottle) {
  return async function throttleFailedKeysMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const peer = ctx.req.socket.remoteAddress;
    // The PC's own requests cost one set lookup (a socket already gone, without an address, is not exempt).
    if (OWN_ADDRESSES.has(peer ?? '')) {
      await next();
      return;
    }
    const address = clientAddress(ctx);
    const blockedMs = throttle.blockedFor(address);
    if (blockedMs > 0) throw errors.failedKeysBlocked(blockedMs);
    try {
      await next();
    } catch (thrown) {
      const refusal = classifyError(thrown);
      if (refusal instanceof AppError && refusal.status === 401) throttle.recordFailure(address);
      throw thrown;
    }
    if (ctx.status === 401) throttle.recordFailure(address);
  };
}

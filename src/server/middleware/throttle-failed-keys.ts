import type { Next } from 'koa';
import { AppError, errors } from '../../errors.js';
import { classifyError } from '../../domain/classify-error.js';
import { clientAddress } from '../api/api-caller.js';
import type { FailedKeyThrottle } from '../throttles/failed-key-throttle.js';
import { isOwnAddress } from '../connections/peer-address.js';
import type { ClinicContext } from '../api/state.js';

/**
 * "Failed keys" (clinic-api-1.2.md, "Network"), on every request whatever its path: a client
 * address blocked by `throttle` is answered 429 TOO_MANY_REQUESTS with Retry-After, as is one
 * that has not used a valid key lately while the clinic-wide budget of 401s is spent; every
 * answer 401 to an address other than the PC's own is recorded (and a wrong key that GET /health
 * ignored: `ctx.state.keyRefused`), and so is every valid key. The PC's own 127.0.0.1 and ::1 are
 * never throttled, since a key is 256 random bits (guessing is hopeless) and the clinic's own
 * integrations and tests must not lock themselves out. Mounted right after handleErrors, so it
 * sees each refusal as it is thrown and its 429 is rendered like every coded error.
 */
export function throttleFailedKeys(throttle: FailedKeyThrottle) {
  return async function throttleFailedKeysMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const address = clientAddress(ctx);
    // The PC's own requests cost one set lookup (a socket already gone, without an address, is not exempt).
    if (isOwnAddress(address)) {
      await next();
      return;
    }
    const blockedMs = throttle.blockedFor(address);
    if (blockedMs > 0) throw errors.failedKeysBlocked(blockedMs);
    const clinicBlockedMs = throttle.clinicBlockedFor(address);
    if (clinicBlockedMs > 0) throw errors.failedKeysClinicWide(clinicBlockedMs);
    let status = 0;
    try {
      await next();
      status = ctx.status;
    } catch (thrown) {
      const refusal = classifyError(thrown);
      if (refusal instanceof AppError) status = refusal.status;
      throw thrown;
    } finally {
      if (status === 401 || ctx.state.keyRefused === true) throttle.recordFailure(address);
      else if (ctx.state.principal !== undefined || ctx.state.session !== undefined) throttle.recordValidKey(address);
    }
  };
}

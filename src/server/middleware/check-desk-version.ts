import type { Next } from 'koa';
import { errors } from '../../errors.js';
import { PROGRAM_VERSION } from '../../version.js';
import type { ClinicContext } from '../api/state.js';

/** `MAJOR.MINOR.PATCH`, as a desk sends its version. */
const VERSION = /^(\d{1,9})\.(\d{1,9})\.(\d{1,9})$/;

/** The minors a desk of the same major may run: this server's and the one on either side. */
export function acceptedMinors(serverVersion: string): string[] {
  const [major, minor] = serverVersion.split('.').map(Number) as [number, number];
  return [minor - 1, minor, minor + 1].filter((m) => m >= 0).map((m) => `${major}.${m}`);
}

/**
 * The desk's version against the server's (interface 1.3.0, "Versions, failures, retries"): every
 * answer carries `Clinic-Version`; a request sending one works when it has the same major and a
 * minor at most one apart, else 400 VERSION_UNSUPPORTED (also for a value that is no
 * `MAJOR.MINOR.PATCH`), naming both versions and what is accepted. Requests without it (an
 * integration) are not checked.
 */
export function checkDeskVersion(serverVersion = PROGRAM_VERSION) {
  const accepted = acceptedMinors(serverVersion);
  return async function checkDeskVersionMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    ctx.set('Clinic-Version', serverVersion);
    const sent = ctx.get('Clinic-Version');
    if (sent !== '') {
      const match = VERSION.exec(sent.trim());
      if (match === null || !accepted.includes(`${Number(match[1])}.${Number(match[2])}`))
        throw errors.versionUnsupported(sent.trim(), serverVersion, accepted);
    }
    await next();
  };
}

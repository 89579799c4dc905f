import type { Next } from 'koa';
import { errors } from '../../errors.js';
import type { NetworkPolicy } from '../connections/network-policy.js';
import type { ClinicContext } from '../api/state.js';

/**
 * Response headers an allowed origin's page may read besides the CORS-safelisted ones: paging,
 * versions, the created resource, when to retry, and the id to quote to IT.
 */
const EXPOSED_HEADERS = 'Content-Disposition, ETag, Link, Location, Retry-After, WWW-Authenticate, X-Request-Id';

/**
 * Whether a browser says this request was made by a page of another site for something it
 * embeds or fetches without CORS (an `<img>`, a `<script>`, a no-cors fetch): such requests carry
 * no `Origin`, yet the page chose the URL. Refused like a foreign Origin, so a page the desk
 * opens cannot run up 401s for the PC's address (the failed-key throttle) or probe paths. Only
 * browsers send `Sec-Fetch-Site`, so integrations and curl are unaffected, and a person following
 * a link to the docs page (a top-level navigation) is too.
 */
function isCrossSiteSubresource(ctx: ClinicContext): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site !== 'cross-site' && site !== 'same-site') return false;
  return !(ctx.get('Sec-Fetch-Mode') === 'navigate' && ctx.get('Sec-Fetch-Dest') === 'document');
}

/**
 * Mounted right after the error renderer, before any other check (clinic-api-1.2.md,
 * "Network"): a `Host` that does not name this server is 403 HOST_NOT_ALLOWED, and an `Origin`
 * that is neither the request's own nor an `--allowed-origin` is 403 ORIGIN_NOT_ALLOWED. An
 * allowed origin's answers, refusals included (its page must be able to read why), carry
 * `Access-Control-Allow-Origin` and `Vary: Origin`; no other answer carries CORS headers.
 */
export function guardHostAndOrigin(policy: NetworkPolicy) {
  return async function guardHostAndOriginMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    const host = ctx.get('Host');
    if (!policy.allowsHost(host)) throw errors.hostNotAllowed();
    const origin = ctx.get('Origin');
    if (origin === '' && isCrossSiteSubresource(ctx)) throw errors.originNotAllowed();
    if (origin !== '') {
      const verdict = policy.originOf(origin, ctx.protocol, host);
      if (verdict === 'refused') throw errors.originNotAllowed();
      if (verdict !== 'same') {
        // The origin as browsers write it, which is what the browser compares it with.
        ctx.state.crossOrigin = verdict.allowed;
        ctx.set('Access-Control-Allow-Origin', verdict.allowed);
        ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
        ctx.vary('Origin');
      }
    }
    await next();
  };
}

import type { Caller } from '../domain/use-case.js';
import { peerAddress } from './peer-address.js';
import type { ClinicContext } from './state.js';

/**
 * The client's IP address as the audit trail records it: the socket's peer (the server sits on
 * the clinic PC and trusts no forwarding header), an IPv4 client on a dual-stack socket written
 * as IPv4 (`127.0.0.1`, not `::ffff:127.0.0.1`).
 */
export function clientAddress(ctx: ClinicContext): string {
  return peerAddress(ctx.req.socket);
}

/** Who asks over HTTP: the key that authorized the request, from the client's address, with the answer's request id. */
export function apiCaller(ctx: ClinicContext): Caller {
  const { principal, requestId } = ctx.state;
  return {
    source: 'api',
    actor:
      principal === undefined
        ? null
        : { type: 'api_key', id: principal.keyId, name: principal.keyName, source: clientAddress(ctx), requestId },
  };
}

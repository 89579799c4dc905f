import type { Caller } from '../../domain/use-case.js';
import type { AuditedReadGuard } from '../throttles/audited-read-guard.js';
import { peerAddress } from '../connections/peer-address.js';
import type { ClinicContext } from './state.js';

/**
 * The client's IP address as the audit trail records it: the socket's peer (the server sits on
 * the clinic PC and trusts no forwarding header), an IPv4 client on a dual-stack socket written
 * as IPv4 (`127.0.0.1`, not `::ffff:127.0.0.1`).
 */
export function clientAddress(ctx: ClinicContext): string {
  return peerAddress(ctx.req.socket);
}

/**
 * Who asks over HTTP: the key that authorized the request, from the client's address, with the
 * answer's request id; its reads of patient data admitted by `auditedReads` (audited-read-guard.ts),
 * which an upload, a write, does not need.
 */
export function apiCaller(ctx: ClinicContext, auditedReads?: AuditedReadGuard): Caller {
  const { principal, requestId } = ctx.state;
  if (principal === undefined) return { source: 'api', actor: null };
  return {
    source: 'api',
    actor: { type: 'api_key', id: principal.keyId, name: principal.keyName, source: clientAddress(ctx), requestId },
    ...(auditedReads === undefined ? {} : { admitAuditedRead: (events: number) => auditedReads.admit(principal, events) }),
  };
}

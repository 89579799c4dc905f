import type { Caller } from '../../domain/use-case.js';
import type { AuditedReadGuard } from '../throttles/audited-read-guard.js';
import { peerAddress } from '../connections/peer-address.js';
import { rolesOf } from '../../domain/people/persons.js';
import { personActor } from '../../domain/people/sessions.js';
import type { ClinicContext, DeskSession } from './state.js';

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
  const { principal, session, requestId } = ctx.state;
  if (session !== undefined) return sessionCaller(ctx, session, auditedReads);
  if (principal === undefined) return { source: 'api', actor: null };
  return {
    source: 'api',
    actor: { type: 'api_key', id: principal.keyId, name: principal.keyName, source: clientAddress(ctx), requestId },
    ...(auditedReads === undefined ? {} : { admitAuditedRead: (events: number) => auditedReads.admit(principal, events) }),
  };
}

/** Where a desk PC's request comes from, as the audit trail names it: `<device name> (<client IP>)`. */
export const deskSource = (ctx: ClinicContext, device: { name: string }) => `${device.name} (${clientAddress(ctx)})`;

/**
 * A person at a desk PC (interface 1.3.0): named by the audit trail from that PC, with their roles
 * for the use case to check; their reads of patient data counted as a key's without a limit.
 */
function sessionCaller(ctx: ClinicContext, session: DeskSession, auditedReads?: AuditedReadGuard): Caller {
  const reader = { keyId: `person:${session.person.id}`, rateLimitPerMinute: null };
  return {
    source: 'api',
    actor: personActor(session.person, deskSource(ctx, session.device), ctx.state.requestId),
    roles: rolesOf(session.person),
    ...(auditedReads === undefined ? {} : { admitAuditedRead: (events: number) => auditedReads.admit(reader, events) }),
  };
}

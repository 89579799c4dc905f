import type { Next } from 'koa';
import type { Db } from '../../db/open-database.js';
import { authenticate, requireScope, type Scope } from '../../domain/api-keys.js';
import { authenticateDevice, noteDeviceSeen } from '../../domain/people/devices.js';
import { markSessionUsed, useSession } from '../../domain/people/sessions.js';
import { rolesOf } from '../../domain/people/persons.js';
import { requireRoles, type Role } from '../../domain/people/roles.js';
import { errors } from '../../errors.js';
import type { KeyRateLimits } from '../throttles/key-rate-limits.js';
import type { CommitGroups } from '../writes/commit-groups.js';
import { clientAddress } from '../api/api-caller.js';
import type { ClinicContext, DeskSession } from '../api/state.js';

/**
 * Who may call an operation (interface 1.3.0, "Key or session"):
 * - `key-or-session`: an API key holding the operation's scope, or a person's session from a desk PC;
 * - `session`: a session only (an API key: 403 SESSION_REQUIRED): a person's own session, desk commands;
 * - `device`: a joined desk PC's `Clinic-Device` alone (POST /sessions, where the person logs in).
 */
export type Credentials = 'key-or-session' | 'session' | 'device';

/** A person's session token, as `Authorization: Bearer cls_…` carries it. */
const SESSION_TOKEN = /^Bearer +(cls_\S+) *$/i;

/**
 * The session of the request's `Authorization`, made through the desk PC of its `Clinic-Device`:
 * the device first (401 DEVICE_UNKNOWN, DEVICE_REVOKED: a revoked PC is refused at once, a running
 * server included), then the session (401 SESSION_ENDED, PERSON_DISABLED; one made through another
 * device: DEVICE_UNKNOWN). Unless `touch` is false (GET /sessions/current looks without using), its
 * idle end moves on; that write, and the device's last sighting, go through the commit groups.
 */
export async function openDeskSession(ctx: ClinicContext, db: Db, commits: CommitGroups, touch: boolean): Promise<DeskSession> {
  const device = authenticateDevice(db, ctx.get('Clinic-Device') || undefined);
  const token = SESSION_TOKEN.exec(ctx.get('Authorization'))?.[1];
  const open = token === undefined ? undefined : useSession(db, token, { touch: false });
  if (open === undefined) throw errors.unauthenticated();
  if (open.session.device_id !== device.id) throw errors.deviceUnknown();
  const session: DeskSession = { ...open, device };
  await noteWrites(commits, [
    noteDeviceSeen(db, device, clientAddress(ctx), ctx.get('Clinic-Version') || null),
    touch ? markSessionUsed(db, session) : null,
  ]);
  return session;
}

/** The joined desk PC of the request's `Clinic-Device` (401 DEVICE_UNKNOWN, DEVICE_REVOKED), noted as seen. */
async function openDevice(ctx: ClinicContext, db: Db, commits: CommitGroups) {
  const device = authenticateDevice(db, ctx.get('Clinic-Device') || undefined);
  await noteWrites(commits, [noteDeviceSeen(db, device, clientAddress(ctx), ctx.get('Clinic-Version') || null)]);
  return device;
}

/** Runs the bookkeeping writes due (a device seen, a session used) as one member of the commit group. */
async function noteWrites(commits: CommitGroups, writes: readonly ((() => void) | null)[]): Promise<void> {
  const due = writes.filter((write) => write !== null);
  if (due.length > 0) await commits.run('write', () => due.forEach((write) => write()));
}

/**
 * Requires the operation's credentials (Credentials). A key must be valid and unrevoked (401),
 * within its own requests per minute, if it has a limit (429 TOO_MANY_REQUESTS with Retry-After to
 * the minute's end), holding `scope` (403 FORBIDDEN). The limit is counted before the scope, so
 * that every request a key makes counts, its refused ones too (docs/design-choices.md, "API keys:
 * scopes, the first key, rate limits"). A session's roles are checked by the use case it runs.
 */
export function authorize(
  db: Db,
  commits: CommitGroups,
  credentials: Credentials,
  scope: Scope | undefined,
  keyLimits: KeyRateLimits,
  roles: readonly Role[],
  touchesSession = true,
) {
  return async function authorizeMiddleware(ctx: ClinicContext, next: Next): Promise<void> {
    if (credentials === 'device') {
      ctx.state.device = await openDevice(ctx, db, commits);
      await next();
      return;
    }
    if (SESSION_TOKEN.test(ctx.get('Authorization'))) {
      ctx.state.session = await openDeskSession(ctx, db, commits, touchesSession);
      // The operation's row, for every operation (an upload runs no use case to check it).
      requireRoles(roles, rolesOf(ctx.state.session.person));
      await next();
      return;
    }
    if (credentials === 'session') {
      // A key is an integration: it has no person to run a desk command or own a session as.
      if (ctx.get('Authorization') !== '') authenticate(db, ctx.get('Authorization'));
      throw ctx.get('Authorization') === '' ? errors.unauthenticated() : errors.sessionRequired();
    }
    const principal = authenticate(db, ctx.get('Authorization') || undefined);
    const limit = principal.rateLimitPerMinute;
    if (limit !== null) {
      const waitMs = keyLimits.take(principal.keyId, limit);
      if (waitMs > 0) throw errors.keyRateLimited(waitMs, limit);
    }
    if (scope !== undefined) requireScope(principal, scope);
    ctx.state.principal = principal;
    await next();
  };
}

import type { Actor } from './audit/audit-event.js';
import type { Role } from './people/roles.js';

// Who asks a use case and how its work is run: the types the use case runner (use-case.ts) and
// what it calls (the audit trail, the restriction) both name, kept apart from the runner itself.

/**
 * How a use case touches the database, which decides its transaction:
 * - `read`: no writes; it may run beside anything.
 * - `write`: its writes are one transaction, all or nothing.
 * - `read-then-write`: what it reads decides what it writes (a balance, an idempotency key), so
 *   no other connection may write between its first read and its commit: BEGIN IMMEDIATE.
 */
export type Access = 'read' | 'write' | 'read-then-write';

/** Who asks: recorded with what they book (an appointment's `booking_source`) and in the audit trail. */
export interface Caller {
  source: 'api' | 'cli';
  /**
   * Who the audit trail names. Null only for work a front end does on its own behalf, such as the
   * heading of a printout whose command already recorded its read: that records nothing.
   */
  actor: Actor | null;
  /**
   * Asked, by a read that records audit events, how many it is about to record, before they are
   * appended; throws to refuse the read (the server's limits on audited reads: a disk below the
   * trail's reserve, a key past its events per minute). Absent: no limit (the desk).
   */
  admitAuditedRead?(events: number): void;
  /**
   * The roles of the person asking, when a person asks (a session, interface 1.3.0): the use case
   * refuses what none of them may do (403 ROLE_FORBIDDEN). Absent for an API key (its scopes were
   * checked) and for the operating system's user while the clinic has no persons.
   */
  roles?: readonly Role[];
}

/**
 * How a front end runs database work, in the transaction `access` asks for, and learns that it is
 * durable: the command line on a connection of its own, at once (connectionRunner); the server in
 * groups that share a COMMIT, once that is done (src/server/writes/commit-groups.ts). Work that outlives
 * one call (an upload's row after its file, a notification's delivery) is given the front end's
 * runner rather than choosing one itself.
 */
export interface WorkRunner {
  run<T>(access: Access, work: () => T): T | Promise<T>;
}

/** A runner that commits before it returns: the work's value comes back at once. */
export interface ConnectionRunner extends WorkRunner {
  run<T>(access: Access, work: () => T): T;
}

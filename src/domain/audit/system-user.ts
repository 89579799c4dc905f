import { hostname, userInfo } from 'node:os';
import type { Actor } from './audit-event.js';

/**
 * Who works at the command line (or whose scheduled backup runs), as the audit trail names them: the operating system's user
 * (id and name alike) on this PC's host name. A user without an entry in the system's user list
 * (a container run with a bare uid) is named by the environment, else by its uid.
 */
export function systemUserActor(): Actor {
  const user = userName();
  return { type: 'cli', id: user, name: user, source: hostname(), requestId: null };
}

function userName(): string {
  try {
    const name = userInfo().username;
    if (name !== '') return name;
  } catch {
    // No passwd entry for this uid: fall through.
  }
  return process.env.USER ?? process.env.USERNAME ?? `uid ${process.getuid?.() ?? 'unknown'}`;
}

/** `clinic serve` itself, as the audit trail names it for what it does on its own (reminders sent, purges). */
export const serverActor = (): Actor => ({ type: 'system', id: 'clinic-serve', name: 'clinic serve', source: hostname(), requestId: null });

import { ROLE_ROWS, type Role } from '../domain/people/roles.js';

/**
 * Each desk command's row of the role matrix (interface 1.3.0, "Roles"): the roles a logged-in
 * person needs for it, or what it needs instead. A command that runs a use case names the use
 * case's own row, so the desk refuses before it opens anything and the use case refuses alike.
 * - `server-pc` (row 20): the OS user on the server PC, never a person: installing, serving,
 *   backing up, restoring, checking.
 * - `no-login` (rows 1-3): anyone, logged in or not: the program's version, logging in and out,
 *   setting one's own PIN.
 * Two commands also run without a login, as the OS user (WITHOUT_LOGIN): `audit verify`, and
 * `staff reset-pin` when no admin can log in any more.
 */
export type DeskRow = readonly Role[] | 'server-pc' | 'no-login';

export const DESK_COMMAND_ROWS: Readonly<Record<string, DeskRow>> = {
  serve: 'server-pc',
  init: 'server-pc',
  backup: 'server-pc',
  restore: 'server-pc',
  upgrade: 'server-pc',
  check: 'server-pc',
  'tls init': 'server-pc',
  'autostart run': 'server-pc',
  'autostart install': 'server-pc',
  'autostart uninstall': 'server-pc',
  'autostart status': 'server-pc',
  version: 'no-login',
  login: 'no-login',
  logout: 'no-login',
  whoami: 'no-login',
  'staff set-pin': 'no-login',
  'desk join': 'no-login',
  'desk status': 'no-login',
  'desk pair': ROLE_ROWS.administer,
  'desk list': ROLE_ROWS.administer,
  'desk revoke': ROLE_ROWS.administer,
  'api-key create': ROLE_ROWS.administer,
  'api-key list': ROLE_ROWS.administer,
  'api-key revoke': ROLE_ROWS.administer,
  'doctor add': ROLE_ROWS.administer,
  'doctor edit': ROLE_ROWS.administer,
  'doctor retire': ROLE_ROWS.administer,
  'doctor reinstate': ROLE_ROWS.administer,
  'doctor list': ROLE_ROWS.lookups,
  'service add': ROLE_ROWS.administer,
  'service edit': ROLE_ROWS.administer,
  'service retire': ROLE_ROWS.administer,
  'service reinstate': ROLE_ROWS.administer,
  'service list': ROLE_ROWS.lookups,
  'module enable': ROLE_ROWS.administer,
  'module disable': ROLE_ROWS.administer,
  'module list': ROLE_ROWS.lookups,
  'settings show': ROLE_ROWS.lookups,
  'settings set-timezone': ROLE_ROWS.administer,
  'settings set-currency': ROLE_ROWS.administer,
  'settings set-contact-rule': ROLE_ROWS.administer,
  'settings set-name': ROLE_ROWS.administer,
  'settings set-country': ROLE_ROWS.administer,
  'settings set-retention': ROLE_ROWS.administer,
  'create-patient': ROLE_ROWS.createPatients,
  'patient edit': ROLE_ROWS.editPatients,
  'patient export': ROLE_ROWS.exportPatients,
  'patient erase': ROLE_ROWS.administer,
  'patient find': ROLE_ROWS.readPatients,
  'patient show': ROLE_ROWS.readPatients,
  'book-appointment': ROLE_ROWS.writeAppointments,
  'appointment reschedule': ROLE_ROWS.writeAppointments,
  'appointment cancel': ROLE_ROWS.writeAppointments,
  'appointment arrived': ROLE_ROWS.writeAppointments,
  'appointment completed': ROLE_ROWS.writeAppointments,
  'appointment no-show': ROLE_ROWS.writeAppointments,
  'appointment confirm': ROLE_ROWS.writeAppointments,
  'appointment list': ROLE_ROWS.readAppointments,
  'reminders set': ROLE_ROWS.administer,
  'sms-gateway set': ROLE_ROWS.administer,
  'sms-gateway show': ROLE_ROWS.administer,
  'sms-gateway remove': ROLE_ROWS.administer,
  'reminders show': ROLE_ROWS.readReminders,
  'reminders list': ROLE_ROWS.readReminders,
  'reminders preview': ROLE_ROWS.readReminders,
  'reminders replies': ROLE_ROWS.readReminders,
  'appointment show': ROLE_ROWS.readAppointments,
  'document list': ROLE_ROWS.listDocuments,
  'document save': ROLE_ROWS.documents,
  'upload-document': ROLE_ROWS.documents,
  'invoice create': ROLE_ROWS.takeMoney,
  'invoice list': ROLE_ROWS.readInvoices,
  'invoice show': ROLE_ROWS.readInvoices,
  'invoice void': ROLE_ROWS.giveMoneyBack,
  'invoice credit': ROLE_ROWS.giveMoneyBack,
  'record-payment': ROLE_ROWS.takeMoney,
  refund: ROLE_ROWS.giveMoneyBack,
  'report day': ROLE_ROWS.readInvoices,
  'notifications list': ROLE_ROWS.readInvoices,
  'webhook add': ROLE_ROWS.administer,
  'webhook list': ROLE_ROWS.administer,
  'webhook enable': ROLE_ROWS.administer,
  'webhook replay': ROLE_ROWS.administer,
  'webhook remove': ROLE_ROWS.administer,
  'audit list': ROLE_ROWS.audit,
  'audit verify': ROLE_ROWS.audit,
  'audit export': ROLE_ROWS.audit,
  'staff add': ROLE_ROWS.administer,
  'staff list': ROLE_ROWS.administer,
  'staff disable': ROLE_ROWS.administer,
  'staff enable': ROLE_ROWS.administer,
  'staff set-roles': ROLE_ROWS.administer,
  'staff reset-pin': ROLE_ROWS.administer,
};

/** The row of the command at `path` (`patient show`); a command missing here is a bug the matrix test finds, refused as admin-only meanwhile. */
export function deskRowOf(path: string): DeskRow {
  return DESK_COMMAND_ROWS[path] ?? ROLE_ROWS.administer;
}

/**
 * The commands the OS user on the server PC may run without logging in, though a person logged in
 * needs the row's roles (interface 1.3.0, rows 18 and 19): whether `path` is one, here and now.
 * `audit verify` always; `staff reset-pin` by the database file's owner when no enabled admin has
 * a PIN and is free of a lock, so a clinic whose admins forgot their PINs is not locked out.
 */
export function runsWithoutLogin(path: string, canResetPins: () => boolean): boolean {
  return path === 'audit verify' || (path === 'staff reset-pin' && canResetPins());
}

/**
 * The commands a desk PC runs by their own operations or on its own (login, whoami, desk join,
 * version), and those whose files would have to cross the network: never run here.
 */
const NOT_RUN_FOR_A_DESK_PC = new Set(['login', 'logout', 'whoami', 'staff set-pin', 'desk join', 'desk status', 'desk pair', 'version']);

/** Why `path` is not run for a desk PC: `server-pc` (row 20, desk pair), `local` (run by the desk itself or its files), or null. */
export function deskPcRefusal(path: string): 'server-pc' | 'local' | null {
  if (path === 'desk pair' || deskRowOf(path) === 'server-pc') return 'server-pc';
  return NOT_RUN_FOR_A_DESK_PC.has(path) ? 'local' : null;
}

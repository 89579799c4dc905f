import { ROLE_NAMES } from '../../role-names.js';
import { errors } from '../../errors.js';

/**
 * The five roles of interface 1.3.0 ("Roles"), in the order every list of them is given: a person
 * may do what any of their roles may.
 */
export const ROLES = ROLE_NAMES;
export type Role = (typeof ROLES)[number];

const ALL: readonly Role[] = ROLES;

/**
 * The rows of the specification's role × operation matrix, named by what they allow, each with the
 * roles that may do it. A use case (and a desk command that runs none) names its row here, and
 * nowhere else are roles written: the API, the desk and `x-clinic-roles` read the same row.
 */
export const ROLE_ROWS = {
  /** Rows 1 and 2: the lookups anyone may read, the health check, the docs, joining a desk. */
  noLogin: [],
  /** Row 3: a person's own session (login, logout, whoami, set-pin). */
  ownSession: ALL,
  /** Row 5: doctors, services, modules, settings. */
  lookups: ALL,
  /** Row 6: finding and reading patients. */
  readPatients: ALL,
  /** Row 7: registering a patient. */
  createPatients: ['admin', 'reception', 'practitioner', 'scheduler'],
  /** Row 8: editing a patient. */
  editPatients: ALL,
  /** Row 9: reading appointments. */
  readAppointments: ALL,
  /** Row 10: booking, moving and marking appointments. */
  writeAppointments: ['admin', 'reception', 'practitioner', 'scheduler'],
  /** Row 11: reminders. */
  readReminders: ['admin', 'reception', 'practitioner', 'scheduler'],
  /** Row 12: a patient's list of documents. */
  listDocuments: ['admin', 'reception', 'practitioner', 'billing'],
  /** Row 13: a document's bytes, and uploads. */
  documents: ['admin', 'reception', 'practitioner'],
  /** Row 14: invoices, the day's report, notifications. */
  readInvoices: ['admin', 'reception', 'practitioner', 'billing'],
  /** Row 15: invoicing and taking money. */
  takeMoney: ['admin', 'reception', 'billing'],
  /** Row 16: voids, credit notes and refunds: not whoever took the cash (reception). */
  giveMoneyBack: ['admin', 'billing'],
  /** Row 17: the patient's copy. */
  exportPatients: ['admin'],
  /** Row 18: the audit trail and the change feed. */
  audit: ['admin'],
  /** Row 19: the clinic's set-up: people, keys, webhooks, catalog changes, modules, settings. */
  administer: ['admin'],
} as const satisfies Record<string, readonly Role[]>;

export type RoleRow = (typeof ROLE_ROWS)[keyof typeof ROLE_ROWS];

/** The roles of `given`, each once, in ROLES order. */
export function orderedRoles(given: Iterable<string>): Role[] {
  const set = new Set(given);
  return ROLES.filter((role) => set.has(role));
}

/** Whether a person with `roles` may do what `allowed` allows (an empty row needs no login at all). */
export function rolesAllow(allowed: readonly Role[], roles: readonly Role[]): boolean {
  return allowed.length === 0 || roles.some((role) => allowed.includes(role));
}

/** 403 ROLE_FORBIDDEN unless one of the person's `roles` is `allowed`. */
export function requireRoles(allowed: readonly Role[], roles: readonly Role[]): void {
  if (!rolesAllow(allowed, roles)) throw errors.roleForbidden(allowed, roles);
}

/**
 * Whether a person with `roles` sees money and documents: a scheduler alone does not (its
 * outstanding balances and a patient's invoices and documents are null). Undefined roles (a key,
 * the OS user) see them.
 */
export function seesMoney(roles: readonly Role[] | undefined): boolean {
  return roles === undefined || roles.some((role) => role !== 'scheduler');
}

/** `shown` with its balance hidden (null, and no balances listed) from a person who does not see money. */
export function balanceFor<T extends { outstanding_balance: unknown; outstanding_currency: unknown; outstanding_balances?: unknown }>(
  shown: T,
  roles: readonly Role[] | undefined,
): T {
  return seesMoney(roles)
    ? shown
    : {
        ...shown,
        outstanding_balance: null,
        outstanding_currency: null,
        ...('outstanding_balances' in shown ? { outstanding_balances: [] } : {}),
      };
}

import type { Db } from '../../db/open-database.js';
import { erasedOwnerOf, RECORD_ID_FIELDS } from '../../db/restricted-patients.js';
import { AppError, errors } from '../../errors.js';
import type { Actor } from '../audit/audit-event.js';
import type { Access, Caller } from '../use-case-context.js';

/** The ids a request may name a patient's records by: each is checked against the erased patients. */
export const RESTRICTED_ID_FIELDS = RECORD_ID_FIELDS;

/**
 * The restriction of an erased patient (GDPR Art. 18; clinic-api-1.3.md, "Restriction"): a
 * request that names the patient or one of its records (in its path, its query or its body) is
 * answered to an admin only, else 403 PATIENT_RESTRICTED, API keys included; an admin reads, and
 * changes nothing but what the use case declares it may (a kept invoice's payments and refunds,
 * the erasure itself). Checked for every use case, on the API and at the desk alike, once its
 * values are valid. The desk's operating system user while the clinic has no persons is its
 * admin, as for every other command; work a front end does on its own behalf (no actor) and the
 * server's own (`system`) are not requests.
 */
export function refuseRestricted(
  db: Db,
  values: Readonly<Record<string, unknown>>,
  caller: Caller,
  use: { access: Access; changesRestricted?: boolean },
): void {
  const actor = caller.actor;
  if (actor === null || actor.type === 'system') return;
  for (const part of ['path', 'query', 'body'] as const) {
    const fields = values[part];
    if (fields === null || typeof fields !== 'object') continue;
    for (const name of RECORD_ID_FIELDS) {
      const id = (fields as Record<string, unknown>)[name];
      if (typeof id !== 'string') continue;
      const owner = erasedOwnerOf(db, name, id);
      if (owner === undefined) continue;
      const admin = actor.type !== 'api_key' && (caller.roles === undefined ? actor.type === 'cli' : caller.roles.includes('admin'));
      if (!admin) throw errors.patientRestricted(owner.patient_number, false);
      if (use.access !== 'read' && use.changesRestricted !== true) throw errors.patientRestricted(owner.patient_number, true);
    }
  }
}

/**
 * The refusal `refuseRestricted` would give an actor's request of `values`, or undefined: for a
 * front end that checks before it runs anything (an upload, whose bytes are not kept when refused).
 */
export function restrictionOf(db: Db, values: Readonly<Record<string, unknown>>, actor: Actor, access: Access): AppError | undefined {
  try {
    refuseRestricted(db, values, { source: 'api', actor }, { access });
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

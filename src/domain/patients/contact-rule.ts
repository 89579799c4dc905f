import type { Db } from '../../db/open-database.js';
import { errors } from '../../errors.js';
import { clinicContactRule } from '../settings.js';

/** How a patient is reached: the fields the clinic's contact rule asks for (the schema lets both be absent). */
export const PATIENT_CONTACT_FIELDS = ['email', 'mobile'] as const;

/** A patient's values (a request's, or a stored row), of which the contact rule reads `email` and `mobile`. */
export type PatientContact = Readonly<Record<string, unknown>>;

/** Absent, null and blank all count as missing (decisions.md §4). */
const isGiven = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/**
 * Refuses a patient left without the contact the clinic's rule asks for (settings set-contact-rule):
 * 422 PATIENT_CONTACT_REQUIRED naming the rule. `email-and-mobile` (1.0.0's) needs both,
 * `email-or-mobile` either, `none` neither. The rule is read per call, so a change applies to a
 * running server at once.
 */
export function requireContactByRule(db: Db, contact: PatientContact): void {
  const rule = clinicContactRule(db);
  if (rule === 'none') return;
  const given = PATIENT_CONTACT_FIELDS.filter((name) => isGiven(contact[name]));
  if (rule === 'email-and-mobile' ? given.length < PATIENT_CONTACT_FIELDS.length : given.length === 0) {
    throw errors.patientContactRequired(rule);
  }
}

/**
 * The same rule for a change (PATCH, `patient edit`): only a patch that clears an email or a mobile
 * (null or blank) is held to it, over the patient as the patch leaves it. A patch that adds contact
 * or leaves it alone is never refused, so a patient registered under a looser rule can still be
 * corrected after the clinic chose a stricter one.
 */
export function requireContactAfterPatch(db: Db, stored: PatientContact, patch: Readonly<Record<string, unknown>>): void {
  const clears = PATIENT_CONTACT_FIELDS.some((name) => name in patch && !isGiven(patch[name]));
  if (!clears) return;
  const after: Record<string, unknown> = {};
  for (const name of PATIENT_CONTACT_FIELDS) after[name] = name in patch ? patch[name] : stored[name];
  requireContactByRule(db, after);
}

import type { Db } from '../../db/open-database.js';
import { field } from '../../fields/field-spec.js';
import { MAX_PAGE_LIMIT } from '../../fields/page-fields.js';
import { REMINDER_STATES } from '../../fields/reminder-fields.js';
import { perDistinctPatient } from '../audit/record-audit.js';
import { deskDate } from '../desk/desk-date.js';
import { ROLE_ROWS } from '../people/roles.js';
import { resolvePatientReference } from '../references.js';
import { refuseRestricted } from '../retention/restriction.js';
import { clinicTimeZone } from '../settings.js';
import { defineUseCase } from '../use-case.js';
import { commaListIssues } from '../validation/comma-list.js';
import { reminderPage, type Reminder } from './list-reminders.js';

/** What `clinic reminders list` asks: a clinic day as the desk writes it, states, a patient by number or id. */
const REMINDERS_AT_DESK_QUERY = [
  field.string('date', {
    description: 'the clinic day the reminders are due: 30.11.2026, 2026-11-30, today or tomorrow (default: every day)',
  }),
  field.string('state', { minLength: 1, maxLength: 200, description: `only these states, comma-separated: ${REMINDER_STATES.join(', ')}` }),
  field.string('patient', { minLength: 1, description: "only this patient's: the number (P-000042, P-42) or the id" }),
] as const;

/**
 * `clinic reminders list`: every reminder that matches, by when it is due, read page by page
 * through the list GET /reminders serves, so the two cannot disagree; recorded as its pages are
 * (`reminder.read`, one per patient shown).
 */
export const REMINDERS_AT_DESK = defineUseCase({
  roles: ROLE_ROWS.readReminders,
  summary: 'Every reminder that matches, by when it is due',
  input: { query: REMINDERS_AT_DESK_QUERY },
  refusals: [],
  access: 'read',
  moreIssues: ({ query }, fieldIssues) =>
    commaListIssues(query, fieldIssues, { field: 'state', allowed: REMINDER_STATES, none: 'name at least one state' }).map((found) => ({
      ...found,
      loc: ['query', ...found.loc.slice(1)],
    })),
  run(db: Db, { query }, caller): Reminder[] {
    const date = query.date === undefined ? undefined : deskDate(query.date, clinicTimeZone(db), Date.now());
    const patientId = query.patient === undefined ? undefined : resolvePatientReference(db, query.patient);
    // The reference is resolved here, so the restriction (1.3.0) is asked of the id it names.
    if (patientId !== undefined) refuseRestricted(db, { query: { patient_id: patientId } }, caller, { access: 'read' });
    const reminders: Reminder[] = [];
    let after: string | undefined;
    do {
      const page = reminderPage(db, {
        date,
        state: query.state,
        patient_id: patientId,
        appointment_id: undefined,
        limit: MAX_PAGE_LIMIT,
        after,
      });
      reminders.push(...page.items);
      after = page.next ?? undefined;
    } while (after !== undefined);
    return reminders;
  },
  audit: (reminders) => perDistinctPatient(reminders, (reminder) => reminder.patient_id, { action: 'reminder.read' }),
});

import { dataDirectoryOf, type Db } from '../../db/open-database.js';
import { field } from '../../fields/field-spec.js';
import type { AuditEvent } from '../audit/audit-event.js';
import { auditWindow, LIST_AUDIT_EVENTS, MAX_AUDIT_PAGE_LIMIT } from '../audit/list-audit-events.js';
import { verifyAnchoredTrail } from '../audit/anchor-trail.js';
import type { Page } from '../pagination.js';
import { clinicTimeZone } from '../settings.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { deskDate } from './desk-date.js';
import { ROLE_ROWS } from '../people/roles.js';

/**
 * The audit trail at the desk (`clinic audit list|verify|export`), for the clinic's IT and its
 * data protection officer. Reading the trail is not recorded in it (clinic-api-1.2.md): none of
 * these declares an audit.
 */

/** The clinic days of an audit command as typed: `--date D` (D to D), or `--from`/`--to`. */
const FROM_TO_DAYS = [
  field.string('from', { description: 'from the start of this clinic day' }),
  field.string('to', { description: 'to the end of this clinic day' }),
] as const;
const WINDOW_DAYS = [
  field.string('date', { description: 'one clinic day: 30.11.2026, 2026-11-30, today or tomorrow' }),
  ...FROM_TO_DAYS,
] as const;

/** Clinic days from the start of `from` to the end of `to`, YYYY-MM-DD; either absent: no bound. */
export interface AuditDays {
  from?: string;
  to?: string;
}

/**
 * The clinic days typed as the YYYY-MM-DD the trail's list takes (deskDate: `30.11.2026`, `today`;
 * else 422 date_parsing naming the option); neither `date` nor `from`/`to`: today, or every day.
 */
function auditDays(db: Db, typed: { date?: string; from?: string; to?: string }, byDefault: 'today' | 'all'): AuditDays {
  const timeZone = clinicTimeZone(db);
  const day = (text: string, option = 'date') => deskDate(text, timeZone, Date.now(), option);
  if (typed.date !== undefined) return { from: day(typed.date), to: day(typed.date) };
  if (typed.from === undefined && typed.to === undefined) return byDefault === 'today' ? { from: day('today'), to: day('today') } : {};
  return {
    ...(typed.from === undefined ? {} : { from: day(typed.from, 'from') }),
    ...(typed.to === undefined ? {} : { to: day(typed.to, 'to') }),
  };
}

/** Reading the trail is not recorded in it: the list is read as nobody. */
const UNRECORDED = { source: 'cli', actor: null } as const;

/** `clinic audit list`: the events shown, and the days and patient they were asked for. */
export interface AuditTrailExtract {
  events: AuditEvent[];
  days: AuditDays;
  /** The patient asked for, if one was. */
  patient_id: string | null;
}

/**
 * `clinic audit list`: the events of a clinic day (today by default), or a patient's (all of them
 * without a day), every page of the very list GET /audit-events serves.
 */
export const LIST_AUDIT_TRAIL = defineUseCase({
  roles: ROLE_ROWS.audit,
  summary: "The audit trail's events of clinic days, or of a patient",
  input: { query: [field.uuid('patient_id', { description: "only this patient's events" }), ...WINDOW_DAYS] },
  refusals: [],
  access: 'read',
  run(db, { query }): AuditTrailExtract {
    const patientId = query.patient_id ?? null;
    const days = auditDays(db, query, patientId === null ? 'today' : 'all');
    const events: AuditEvent[] = [];
    let after: string | null = null;
    do {
      const list = {
        ...days,
        ...(patientId === null ? {} : { patient_id: patientId }),
        limit: String(MAX_AUDIT_PAGE_LIMIT),
        ...(after === null ? {} : { after }),
      };
      const page: Page<AuditEvent> = performUseCase(LIST_AUDIT_EVENTS, db, { query: list }, UNRECORDED);
      events.push(...page.items);
      after = page.next;
    } while (after !== null);
    return { events, days, patient_id: patientId };
  },
});

/**
 * `clinic audit verify`: the whole chain recomputed, then held to the checkpoints of the data
 * directory's anchor (verifyAnchoredTrail); AUDIT_CHAIN_BROKEN names the first event that does not
 * verify, or the first after the last checkpoint that still holds.
 */
export const VERIFY_AUDIT_TRAIL = defineUseCase({
  roles: ROLE_ROWS.audit,
  summary: 'Recompute the whole audit trail: each event must follow the one before and hash to what it holds',
  input: {},
  refusals: [],
  access: 'read',
  run: (db) => verifyAnchoredTrail(db, dataDirectoryOf(db)),
});

/**
 * `clinic audit export`: the window [from, to) of the clinic days typed, as UTC instants (either
 * null: no bound), whose events the desk then writes as FHIR AuditEvents (exportFhirAuditEvents).
 */
export const EXPORT_AUDIT_TRAIL = defineUseCase({
  roles: ROLE_ROWS.audit,
  summary: "Export the audit trail's events of clinic days as FHIR R4 AuditEvent resources",
  input: { query: FROM_TO_DAYS },
  refusals: [],
  access: 'read',
  run(db, { query }): { from: string | null; to: string | null } {
    const days = auditDays(db, query, 'all');
    return auditWindow(days.from, days.to, clinicTimeZone(db));
  },
});

// src/domain/audit/list-audit-events.ts: GET /audit-events and its window (clinic-api-1.2.md, "Audit trail").
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import type { AuditRecord } from '../../../src/domain/audit/audit-event.js';
import { auditWindow, LIST_AUDIT_EVENTS } from '../../../src/domain/audit/list-audit-events.js';
import { appendAuditEvents, DATA_EXPORT } from '../../../src/domain/audit/record-audit.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { ValidationError } from '../../../src/errors.js';
import { createTestPatient } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * LIST_AUDIT_EVENTS (GET /audit-events, and every page of `clinic audit list`; clinic-api-1.2.md,
 * "Audit trail"): its filters, pages and refusals, and that reading the trail records nothing.
 * The Link header and the scope: test/server/routes/audit.test.ts.
 */

interface Given {
  ada: string;
  grace: string;
}

/** Appends `records` at `iso` on the program's clock. */
function recordAt(db: Db, iso: string, records: readonly AuditRecord[]): void {
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  try {
    db.transaction(() => appendAuditEvents(db, DESK_USER.actor!, records))();
  } finally {
    mock.timers.reset();
  }
}

/**
 * A clinic in Vienna whose trail holds four events around the clinic day 30 November 2026
 * (00:00 there is 23:00 UTC the day before): Ada read late on the 29th, Grace read early on the
 * 30th, Ada's invoice read at noon, and a backup early on 1 December.
 */
function aViennaTrail(db: Db): Given {
  setClinicTimeZone(db, 'Europe/Vienna');
  const ada = createTestPatient(db).id;
  const grace = createTestPatient(db, { first_name: 'Grace', last_name: 'Hopper' }).id;
  recordAt(db, '2026-11-29T22:30:00.000Z', [{ action: 'patient.read', patientId: ada, subjectId: ada }]);
  recordAt(db, '2026-11-29T23:30:00.000Z', [{ action: 'patient.read', patientId: grace, subjectId: grace }]);
  recordAt(db, '2026-11-30T12:00:00.000Z', [{ action: 'invoice.read', patientId: ada, subjectId: null }]);
  recordAt(db, '2026-11-30T23:30:00.000Z', [DATA_EXPORT]);
  return { ada, grace };
}

/** A page of the events of these seqs, and what follows it; reading records nothing. */
const page =
  (seqs: number[], next: string | null = null) =>
  () => ({
    result: { items: seqs.map((seq) => ({ seq })), next },
    audit: [],
    changes: [],
  });

const listed = (title: string, query: (given: Given) => Record<string, string>, seqs: number[], next: string | null = null) => ({
  title,
  given: aViennaTrail,
  request: (given: Given) => ({ query: query(given) }),
  expect: page(seqs, next),
});

const invalid = (title: string, query: Record<string, string>, loc: string, type: string): Scenario<Given> => ({
  title,
  given: aViennaTrail,
  request: () => ({ query }),
  expect: () => ({ invalid: [loc], types: [type] }),
});

const scenarios: Scenario<Given>[] = [
  listed('lists every event in seq order without a filter, and records nothing', () => ({}), [1, 2, 3, 4]),
  {
    title: "lists one patient's events, each with the patient's id and number",
    given: aViennaTrail,
    request: (given) => ({ query: { patient_id: given.ada } }),
    expect: (given) => ({
      result: {
        items: [
          { seq: 1, action: 'patient.read', patient_id: given.ada, patient_number: /^P-\d{6}$/, subject_id: given.ada },
          { seq: 3, action: 'invoice.read', patient_id: given.ada, subject_type: 'invoice', subject_id: null },
        ],
        next: null,
      },
      audit: [],
      changes: [],
    }),
  },
  listed('lists the actions named, comma-separated', () => ({ action: 'invoice.read,data.export' }), [3, 4]),
  listed('reads a date from and to as that whole clinic day, in clinic time', () => ({ from: '2026-11-30', to: '2026-11-30' }), [2, 3]),
  listed('reads a date-time without offset as clinic time, its first instant included', () => ({ from: '2026-11-30T13:00' }), [3, 4]),
  listed('reads a date-time with an offset as that instant, its end excluded', () => ({ to: '2026-11-30T12:00:00Z' }), [1, 2]),
  listed('cuts a page at limit, the next starting after its last seq', () => ({ limit: '2' }), [1, 2], '2'),
  listed('gives the next page after a seq, and none after the last', () => ({ after: '2', limit: '2' }), [3, 4]),
  listed('says no next page when exactly limit events are left', () => ({ limit: '4' }), [1, 2, 3, 4]),
  listed('takes the largest page, 1000', () => ({ limit: '1000' }), [1, 2, 3, 4]),
  invalid('refuses a page of 1001', { limit: '1001' }, 'query.limit', 'less_than_equal'),
  invalid(
    'refuses an action the trail never records (a typo would find nothing)',
    { action: 'patient.raed' },
    'query.action',
    'value_error',
  ),
  invalid('refuses a from that is neither a date nor a date-time', { from: 'yesterday' }, 'query.from', 'datetime_parsing'),
  invalid('refuses a to that is not after from', { from: '2026-11-30T12:00Z', to: '2026-11-30T12:00Z' }, 'query.to', 'value_error'),
  {
    title: 'refuses a person who is no admin (403 ROLE_FORBIDDEN)',
    given: aViennaTrail,
    request: () => ({ query: {} }),
    caller: { ...DESK_USER, roles: ['reception', 'billing', 'practitioner', 'scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('listing the audit trail (LIST_AUDIT_EVENTS)', LIST_AUDIT_EVENTS, scenarios);

describe('the window of an audit query', () => {
  it('spans a clinic day of 23 hours on the spring DST day, and one of 25 on the autumn one', () => {
    assert.deepEqual(auditWindow('2026-03-29', '2026-03-29', 'Europe/Vienna'), {
      from: '2026-03-28T23:00:00.000Z',
      to: '2026-03-29T22:00:00.000Z',
    });
    assert.deepEqual(auditWindow('2026-10-25', '2026-10-25', 'Europe/Vienna'), {
      from: '2026-10-24T22:00:00.000Z',
      to: '2026-10-25T23:00:00.000Z',
    });
  });

  it('leaves an absent end unbounded, with no limit on the span', () => {
    assert.deepEqual(auditWindow(undefined, undefined, 'Europe/Vienna'), { from: null, to: null });
    assert.deepEqual(auditWindow('2000-01-01', '2099-12-31', 'UTC'), { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' });
  });

  it('refuses both ends at once when neither can be read', () => {
    assert.throws(
      () => auditWindow('30.11.2026', 'soon', 'UTC'),
      (error: unknown) => {
        assert.ok(error instanceof ValidationError, `a ValidationError, not ${String(error)}`);
        assert.deepEqual(
          error.issues.map((issue) => issue.loc.join('.')),
          ['query.from', 'query.to'],
        );
        return true;
      },
    );
  });
});

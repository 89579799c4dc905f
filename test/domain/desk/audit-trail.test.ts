// src/domain/desk/audit-trail.ts: `clinic audit list|verify|export` (clinic-api-1.2.md, "Audit trail").
import { afterEach, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { EXPORT_AUDIT_TRAIL, LIST_AUDIT_TRAIL, VERIFY_AUDIT_TRAIL } from '../../../src/domain/desk/audit-trail.js';
import { READ_PATIENT } from '../../../src/domain/patients/read-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * The audit trail at the desk (`clinic audit list|verify|export`; clinic-api-1.2.md, "Audit
 * trail"): which clinic days and patient a command reads, and that reading the trail records
 * nothing. The printouts, exit codes and the FHIR file: test/cli/commands/audit.test.ts.
 */

/** The clinic's now while a scenario runs: 00:30 on 30 November 2026 in Vienna, still the 29th in UTC. */
const NOW = '2026-11-29T23:30:00.000Z';

// A scenario leaves the program's clock at NOW for its request; it is put back after each.
afterEach(() => mock.timers.reset());

/** Sets the program's clock (Date) to `iso`. */
function clockAt(iso: string): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
}

interface Given {
  ada: string;
  grace: string;
}

/** Reads `patientId`'s record at the desk at `iso`: one patient.read. */
function readAt(db: Db, iso: string, patientId: string): void {
  clockAt(iso);
  performUseCase(READ_PATIENT, db, { path: { patient_id: patientId } }, DESK_USER);
}

/**
 * A Vienna clinic's trail around 30 November 2026 (from 23:00 UTC the day before): Ada read late
 * on the 29th (seq 1), Grace just after midnight (2), Ada at 11:00 (3), Grace on 1 December (4).
 * The clock is then NOW.
 */
function aViennaTrail(db: Db): Given {
  setClinicTimeZone(db, 'Europe/Vienna');
  const ada = createTestPatient(db).id;
  const grace = createTestPatient(db, { first_name: 'Grace', last_name: 'Hopper' }).id;
  readAt(db, '2026-11-29T22:59:59.999Z', ada);
  readAt(db, '2026-11-29T23:00:00.000Z', grace);
  readAt(db, '2026-11-30T11:00:00.000Z', ada);
  readAt(db, '2026-11-30T23:00:00.000Z', grace);
  clockAt(NOW);
  return { ada, grace };
}

/** These events, asked for these days and patient; reading the trail records nothing. */
const extract = (seqs: number[], days: Record<string, string>, patientId: string | null = null) => ({
  result: { events: seqs.map((seq) => ({ seq })), days, patient_id: patientId },
  audit: [],
  changes: [],
});

const listed = (title: string, query: Record<string, string>, seqs: number[], days: Record<string, string>): Scenario<Given> => ({
  title,
  given: aViennaTrail,
  request: () => ({ query }),
  expect: () => extract(seqs, days),
});

const listing: Scenario<Given>[] = [
  listed("lists today's clinic day without a date, and records nothing", {}, [2, 3], { from: '2026-11-30', to: '2026-11-30' }),
  listed('lists one clinic day as the desk types it', { date: '29.11.2026' }, [1], { from: '2026-11-29', to: '2026-11-29' }),
  listed('lists from a day on, with no end', { from: 'today' }, [2, 3, 4], { from: '2026-11-30' }),
  listed('lists up to the end of a day, with no start', { to: '2026-11-29' }, [1], { to: '2026-11-29' }),
  {
    title: "lists all of a patient's events without a day",
    given: aViennaTrail,
    request: (given) => ({ query: { patient_id: given.grace } }),
    expect: (given) => extract([2, 4], {}, given.grace),
  },
  {
    title: 'lists every page of a day of more than 1000 events',
    given: (db) => {
      const given = aViennaTrail(db);
      // One commit for the thousand reads, each in a savepoint of it: a test need not fsync each.
      db.transaction(() => {
        for (let i = 0; i < 1000; i++) readAt(db, '2026-11-30T12:00:00.000Z', given.ada);
      })();
      clockAt(NOW);
      return given;
    },
    request: () => ({ query: {} }),
    expect: () => extract([2, 3, ...Array.from({ length: 1000 }, (_, i) => i + 5)], { from: '2026-11-30', to: '2026-11-30' }),
  },
  {
    title: 'refuses a day it cannot read, naming the option typed',
    given: aViennaTrail,
    request: () => ({ query: { from: '31.11.2026' } }),
    expect: () => ({ invalid: ['query.from'], types: ['date_parsing'] }),
  },
  {
    title: 'refuses a person who is no admin (403 ROLE_FORBIDDEN)',
    given: aViennaTrail,
    request: () => ({ query: {} }),
    caller: { ...DESK_USER, roles: ['reception'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

const verifying: Scenario<Given>[] = [
  {
    title: 'verifies the whole trail, saying no anchor was found, and records nothing',
    given: aViennaTrail,
    request: () => ({}),
    expect: () => ({ result: { ok: true, events: 4, last_seq: 4, anchor: { state: 'missing' } }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a trail with a changed event (500 AUDIT_CHAIN_BROKEN), naming it',
    given: (db) => {
      const given = aViennaTrail(db);
      db.exec('DROP TRIGGER audit_trail_append_only_on_update; UPDATE audit_trail SET at = at + 1 WHERE seq = 3;');
      return given;
    },
    request: () => ({}),
    expect: () => ({ refused: 'AUDIT_CHAIN_BROKEN', status: 500, message: /from event 3 on/ }),
  },
];

const exporting: Scenario<Given>[] = [
  {
    title: 'exports clinic days as the window from the start of the first to the end of the last, in UTC',
    given: aViennaTrail,
    request: () => ({ query: { from: '29.11.2026', to: '2026-11-30' } }),
    expect: () => ({ result: { from: '2026-11-28T23:00:00.000Z', to: '2026-11-30T23:00:00.000Z' }, audit: [], changes: [] }),
  },
  {
    title: 'exports the whole trail without days',
    given: aViennaTrail,
    request: () => ({ query: {} }),
    expect: () => ({ result: { from: null, to: null }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a last day before the first',
    given: aViennaTrail,
    request: () => ({ query: { from: 'today', to: '29.11.2026' } }),
    expect: () => ({ invalid: ['query.to'], types: ['value_error'] }),
  },
];

describeScenarios('the audit trail at the desk (LIST_AUDIT_TRAIL)', LIST_AUDIT_TRAIL, listing);
describeScenarios('verifying the audit trail at the desk (VERIFY_AUDIT_TRAIL)', VERIFY_AUDIT_TRAIL, verifying);
describeScenarios('exporting the audit trail at the desk (EXPORT_AUDIT_TRAIL)', EXPORT_AUDIT_TRAIL, exporting);

import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { EXPORT_PATIENT, openPatientExport, type PatientExport } from '../../../src/domain/patient-export/export-patient.js';
import { ERASE_PATIENT } from '../../../src/domain/retention/erase-patient.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase, type Caller } from '../../../src/domain/use-case.js';
import { AppError } from '../../../src/errors.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';
import { zipEntries } from '../../helpers/zip-entries.js';

/**
 * EXPORT_PATIENT (GET /patients/{patient_id}/export, `clinic patient export`; clinic-api-1.3.md,
 * "The patient's copy"), rule by rule, and its delivery (openPatientExport). The wiring of each
 * front end: test/server/patient-export.test.ts and test/cli/commands/patient-export.test.ts.
 */

interface Given {
  patientId: string;
  patientNumber: string;
}

const KEY: Caller = { source: 'api', actor: { type: 'api_key', id: 'k-1', name: 'Praxis-Software', source: '127.0.0.1', requestId: null } };
const person = (roles: Caller['roles']): Caller => ({
  source: 'cli',
  actor: { type: 'person', id: 'p-1', name: 'Anna', source: 'reception-pc', requestId: null },
  roles,
});

/** Sets the program's clock (Date) to `iso`. */
function at(iso: string): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
}

/** A `given`: a patient of a clinic in Vienna, with the clock at `now`. */
const givenPatientAt =
  (now: string, before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    at(now);
    setClinicTimeZone(db, 'Europe/Vienna');
    const patient = createTestPatient(db);
    const given = { patientId: patient.id, patientNumber: patient.patient_number };
    before(db, given);
    return given;
  };

/** A patient erased under AT rules, kept (restricted) for a completed visit. */
const erased = (db: Db, given: Given) => {
  bookAppointment(
    db,
    { patient_id: given.patientId, start_at: '2026-03-10T09:00:00Z', end_at: '2026-03-10T10:00:00Z', status: 'completed' },
    'api',
  );
  setClinicRetention(db, 'AT', undefined);
  performUseCase(ERASE_PATIENT, db, { path: { patient_id: given.patientId }, body: { dry_run: false } }, DESK_USER);
};

const request = (given: Given) => ({ path: { patient_id: given.patientId } });

/** A copy made at `now`, named for the clinic day `day`: answered, with nothing recorded until it is delivered. */
const copyOn = (now: string, day: string) => (given: Given) => ({
  result: {
    filename: `${given.patientNumber}-${day}.zip`,
    contents: { patient: { id: given.patientId }, createdAt: new Date(now).toISOString(), clinic: { timeZone: 'Europe/Vienna' } },
  },
  audit: [],
  changes: [],
});

const scenarios: Scenario<Given>[] = [
  {
    title: "answers the patient's copy named for the patient's number and the clinic's day it was made, recording nothing until delivered",
    given: givenPatientAt('2026-11-30T10:00:00Z'),
    request,
    expect: copyOn('2026-11-30T10:00:00Z', '2026-11-30'),
  },
  {
    title: "names a copy made at the clinic's midnight for the new day, though it is still the day before in UTC",
    given: givenPatientAt('2026-11-30T23:00:00Z'),
    request,
    expect: copyOn('2026-11-30T23:00:00Z', '2026-12-01'),
  },
  {
    title: "names a copy made a millisecond before the clinic's midnight for the day ending",
    given: givenPatientAt('2026-11-30T22:59:59.999Z'),
    request,
    expect: copyOn('2026-11-30T22:59:59.999Z', '2026-11-30'),
  },
  {
    title: 'answers an admin the copy of an erased patient, kept for its retention',
    given: givenPatientAt('2026-11-30T10:00:00Z', erased),
    request,
    caller: person(['admin']),
    expect: copyOn('2026-11-30T10:00:00Z', '2026-11-30'),
  },
  {
    title: 'refuses an API key the copy of an erased patient (403 PATIENT_RESTRICTED)',
    given: givenPatientAt('2026-11-30T10:00:00Z', erased),
    request,
    caller: KEY,
    expect: () => ({ refused: 'PATIENT_RESTRICTED', status: 403 }),
  },
  ...(['reception', 'practitioner', 'billing', 'scheduler'] as const).map((role): Scenario<Given> => ({
    title: `refuses a person of ${role} alone: only admin exports (403 ROLE_FORBIDDEN)`,
    given: givenPatientAt('2026-11-30T10:00:00Z'),
    request,
    caller: person([role]),
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  })),
  {
    title: 'refuses a patient no one has (404 PATIENT_NOT_FOUND)',
    given: givenPatientAt('2026-11-30T10:00:00Z'),
    request: () => ({ path: { patient_id: '00000000-0000-4000-8000-000000000000' } }),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses an id that is no UUID as invalid (422 uuid_parsing)',
    given: givenPatientAt('2026-11-30T10:00:00Z'),
    request: () => ({ path: { patient_id: 'P-000001' } }),
    expect: () => ({ invalid: ['path.patient_id'], types: ['uuid_parsing'] }),
  },
];

describe('EXPORT_PATIENT', () => {
  afterEach(() => mock.timers.reset());
  describeScenarios("a patient's copy (EXPORT_PATIENT)", EXPORT_PATIENT, scenarios);
});

describe('openPatientExport', () => {
  const data = useTestDatabase({ each: true });

  /** The copy of a new patient with two documents, as EXPORT_PATIENT answers it, and its documents' file paths. */
  function exportWithDocuments(): { exported: PatientExport; files: string[] } {
    const patient = createTestPatient(data.db);
    const ids = [Buffer.from('first scan'), Buffer.from('second scan')].map((bytes) =>
      addDocument(data.db, data.dataDir, patient.id, bytes),
    );
    const exported = performUseCase(EXPORT_PATIENT, data.db, { path: { patient_id: patient.id } }, DESK_USER);
    return { exported, files: ids.map((id) => join(data.dataDir, 'documents', patient.id, id)) };
  }

  it('records the export before the first byte of the copy, then streams it whole', async () => {
    const { exported } = exportWithDocuments();
    const order: string[] = [];
    const archive = await openPatientExport(data.dataDir, exported, async () => {
      order.push('recorded');
    });
    archive.once('data', () => order.push('first byte'));
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    assert.deepEqual(order, ['recorded', 'first byte']);
    assert.equal((await zipEntries(Buffer.concat(chunks))).length, 13);
  });

  it('refuses a copy that could not be whole (500 STORAGE_FAILED) before recording anything: a file missing, or not at its size', async () => {
    for (const damage of [(path: string) => rmSync(path), (path: string) => writeFileSync(path, 'first scan, and more')]) {
      const { exported, files } = exportWithDocuments();
      damage(files[1]!);
      let recorded = false;
      await assert.rejects(
        openPatientExport(data.dataDir, exported, async () => {
          recorded = true;
        }),
        (error) => error instanceof AppError && error.code === 'STORAGE_FAILED' && error.status === 500,
      );
      assert.equal(recorded, false, 'no patient.export for a copy never sent');
    }
  });
});

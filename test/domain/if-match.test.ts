import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { UPDATE_PATIENT } from '../../src/domain/patients/update-patient.js';
import { readPatient } from '../../src/domain/patients/read-patient.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

// Issue 42, 14: `If-Match: 2` (unquoted) was answered "it is at version 2 now", which left the
// caller puzzled: still 412 PRECONDITION_FAILED, but saying that an entity tag is quoted.

describe('an If-Match without an entity tag', () => {
  const data = useTestDatabase();
  const patch = (ifMatch: string) =>
    performUseCase(
      UPDATE_PATIENT,
      data.db,
      { path: { patient_id: patient().id }, header: { 'if-match': ifMatch }, body: { title: 'Dr.' } },
      { source: 'api', actor: null },
    );
  let created: ReturnType<typeof createTestPatient> | undefined;
  const patient = () => (created ??= createTestPatient(data.db));

  it('is refused with 412 saying how to quote it, and changes nothing', () => {
    assert.throws(
      () => patch('1'),
      (error: unknown) =>
        error instanceof AppError &&
        error.status === 412 &&
        error.code === 'PRECONDITION_FAILED' &&
        error.message.includes('If-Match: "1" for version 1') &&
        !error.message.includes('changed meanwhile'),
    );
    assert.equal(readPatient(data.db, patient().id).version, 1);
  });

  it('keeps the message of a stale quoted version', () => {
    assert.throws(
      () => patch('"7"'),
      (error: unknown) => error instanceof AppError && error.message.includes('changed meanwhile: it is at version 1 now'),
    );
    assert.equal(patch('"1"').patient.version, 2);
  });
});

// What people know a patient by: the number on paper and the name (clinic-api-1.1.md, "Staff references on the command line").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { findPatientName } from '../../src/db/patient-names.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

describe('patient names (db)', () => {
  const data = useTestDatabase();

  it('gives the number on paper and the name as stored of the patient with this id', () => {
    createTestPatient(data.db, { first_name: 'Ada', last_name: 'Lovelace' });
    const patient = createTestPatient(data.db, { first_name: 'Émilie', last_name: 'du Châtelet' });
    assert.deepEqual(findPatientName(data.db, patient.id), { patient_number: 'P-000002', first_name: 'Émilie', last_name: 'du Châtelet' });
  });

  it('gives nothing for an id no patient has', () => {
    assert.equal(findPatientName(data.db, randomUUID()), undefined);
  });
});

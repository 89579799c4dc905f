import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

/** GET /patients?q as the desk types it (clinic-api-1.2.md, "Search, as the desk types it"). */
describe('GET /patients?q as the desk types it', () => {
  const server = useTestServer();
  let jurgen: Patient;
  let other: Patient;
  before(() => {
    jurgen = createTestPatient(server.db, { first_name: 'Jürgen', last_name: 'Müller', mobile: '+43 664 1234567' });
    other = createTestPatient(server.db, { first_name: 'Anna', last_name: 'Müller', mobile: '0676 5550101' });
  });
  const found = async (q: string) => {
    const answer = await server.request('GET', `/patients?q=${encodeURIComponent(q)}`);
    assert.equal(answer.status, 200, `${q}: ${answer.text}`);
    return (answer.body as Patient[]).map((patient) => patient.patient_number);
  };

  it('splits words at commas too', async () => {
    for (const q of ['müller, jürgen', 'Müller,Jürgen', 'jürgen ,müller']) assert.deepEqual(await found(q), [jurgen.patient_number], q);
  });

  it('finds a mobile typed as the desk sees it: with the country code, the trunk 0 or the international 00', async () => {
    for (const q of ['+43 664 1234567', '0664 1234567', '0664/1234567', '0043 664 1234567', '(0664) 123 45 67', '664-1234567']) {
      assert.deepEqual(await found(q), [jurgen.patient_number], q);
    }
  });

  it('finds a number stored with its trunk 0 by the same spelling, and not the other patient', async () => {
    assert.deepEqual(await found('0676 5550101'), [other.patient_number]);
    assert.deepEqual(await found('0676/555 0101'), [other.patient_number]);
    assert.deepEqual(await found('0664 7654321'), []);
  });
});

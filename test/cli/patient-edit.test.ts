import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readPatient } from '../../src/domain/patients/read-patient.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';

/** `clinic patient edit` (clinic-api-1.2.md, "The desk's corrections"): PATCH /patients/{id} at the desk. */
describe('clinic patient edit', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const json = (result: CliResult) => {
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const refusal = (result: CliResult) => {
    assert.equal(result.code, 1, result.stdout);
    return (JSON.parse(result.stderr) as { detail: { code: string } }).detail;
  };

  it('changes the options given by the patient number, and prints what changed for people', async () => {
    const patient = createTestPatient(data.db, { first_name: 'Jürgen', last_name: 'Edit', mobile: '+43 660 1000001' });
    const result = await clinic('patient', 'edit', patient.patient_number.replace('P-0000', 'p-'), '--mobile', '+43 660 2000002');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^Patient ${patient.patient_number} Jürgen Edit changed \\(version 2\\)`, 'm'));
    assert.match(result.stdout, /^Mobile +\+43 660 2000002$/m);
    assert.doesNotMatch(result.stdout, /First name|^Version/m, 'only what changed');
    assert.equal(readPatient(data.db, patient.id).mobile, '+43 660 2000002');
  });

  it('prints the API body with --json, clears a field given as empty text, and says when nothing changed', async () => {
    const patient = createTestPatient(data.db, { notes: 'Allergie: Latex' });
    const changed = json(await clinic('patient', 'edit', patient.id, '--notes', '', '--is-active', 'false', '--json'));
    assert.equal(changed.notes, null);
    assert.equal(changed.is_active, false);
    assert.equal(changed.version, 2);
    const again = await clinic('patient', 'edit', patient.patient_number, '--is-active', 'false');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Nothing changed: .* already has these values \(version 2\)\.$/m);
  });

  it('refuses a stale --if-version with PRECONDITION_FAILED, and an emptied mobile, changing nothing', async () => {
    const patient = createTestPatient(data.db);
    json(await clinic('patient', 'edit', patient.patient_number, '--title', 'Dr.', '--if-version', '1', '--json'));
    assert.equal(
      refusal(await clinic('patient', 'edit', patient.patient_number, '--title', 'Mag.', '--if-version', '1', '--json')).code,
      'PRECONDITION_FAILED',
    );
    assert.equal(
      refusal(await clinic('patient', 'edit', patient.patient_number, '--mobile', '', '--json')).code,
      'PATIENT_CONTACT_REQUIRED',
    );
    const stored = readPatient(data.db, patient.id);
    assert.deepEqual([stored.title, stored.version, stored.mobile], ['Dr.', 2, patient.mobile]);
    const usage = await clinic('patient', 'edit', patient.patient_number, '--if-version', 'two');
    assert.equal(usage.code, 2);
  });

  it('refuses a patient number that names nobody with PATIENT_NOT_FOUND', async () => {
    assert.equal(refusal(await clinic('patient', 'edit', 'P-999999', '--title', 'x', '--json')).code, 'PATIENT_NOT_FOUND');
  });
});

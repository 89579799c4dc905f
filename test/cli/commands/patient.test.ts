import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readPatient } from '../../../src/domain/patients/read-patient.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { rmSync } from 'node:fs';
import { openDatabase } from '../../../src/db/open-database.js';
import { makeDataDir } from '../../helpers/fixtures.js';
import { jsonOf, refusalOf } from '../../helpers/desk-output.js';

/** `clinic patient edit` (clinic-api-1.2.md, "The desk's corrections"): PATCH /patients/{id} at the desk. */
describe('clinic patient edit', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

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
    const changed = jsonOf(await clinic('patient', 'edit', patient.id, '--notes', '', '--is-active', 'false', '--json'));
    assert.equal(changed.notes, null);
    assert.equal(changed.is_active, false);
    assert.equal(changed.version, 2);
    const again = await clinic('patient', 'edit', patient.patient_number, '--is-active', 'false');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Nothing changed: .* already has these values \(version 2\)\.$/m);
  });

  it('refuses a stale --if-version with PRECONDITION_FAILED, and an emptied mobile, changing nothing', async () => {
    const patient = createTestPatient(data.db);
    jsonOf(await clinic('patient', 'edit', patient.patient_number, '--title', 'Dr.', '--if-version', '1', '--json'));
    assert.equal(
      refusalOf(await clinic('patient', 'edit', patient.patient_number, '--title', 'Mag.', '--if-version', '1', '--json')).code,
      'PRECONDITION_FAILED',
    );
    assert.equal(
      refusalOf(await clinic('patient', 'edit', patient.patient_number, '--mobile', '', '--json')).code,
      'PATIENT_CONTACT_REQUIRED',
    );
    const stored = readPatient(data.db, patient.id);
    assert.deepEqual([stored.title, stored.version, stored.mobile], ['Dr.', 2, patient.mobile]);
    const usage = await clinic('patient', 'edit', patient.patient_number, '--if-version', 'two');
    assert.equal(usage.code, 2);
  });

  it('refuses a patient number that names nobody with PATIENT_NOT_FOUND', async () => {
    assert.equal(refusalOf(await clinic('patient', 'edit', 'P-999999', '--title', 'x', '--json')).code, 'PATIENT_NOT_FOUND');
  });
});

// `clinic patient find` takes the words GET /patients?q takes, with the same bound on their number.

describe('clinic patient find: the number of words', () => {
  const dataDir = makeDataDir();
  before(() => {
    const db = openDatabase(dataDir);
    try {
      createTestPatient(db, { first_name: 'Hans', last_name: 'Müller-Lüdenscheidt' });
    } finally {
      db.close();
    }
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('finds with 10 words', async () => {
    const result = await runClinic(['patient', 'find', ...'h ha han hans h ha han hans m lud'.split(' '), '--json', '--data', dataDir]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      JSON.parse(result.stdout).map((p: { last_name: string }) => p.last_name),
      ['Müller-Lüdenscheidt'],
    );
  });

  it('refuses 11 words as the API does, exit 1, naming the limit', async () => {
    const words = 'a b c d e f g h i j k'.split(' ');
    const human = await runClinic(['patient', 'find', ...words, '--data', dataDir]);
    assert.equal(human.code, 1, human.stderr);
    assert.match(human.stderr, /<text\.\.\.> "a b c d e f g h i j k": Value error, a search may hold at most 10 words \(value_error\)/);
    const json = await runClinic(['patient', 'find', ...words, '--json', '--data', dataDir]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stderr.trim()).detail[0].loc, ['query', 'q']);
  });
});

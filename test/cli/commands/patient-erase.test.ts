import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';

// `clinic patient erase REF --dry-run|--confirm` (clinic-api-1.3.md, "Erasure"), as a child process.

describe('clinic patient erase', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

  it('takes exactly one of --dry-run and --confirm (else exit 2)', async () => {
    const patient = createTestPatient(data.db, { first_name: 'Eva', last_name: 'Eins' });
    const neither = await clinic('patient', 'erase', patient.patient_number);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /exactly one of '--dry-run' and '--confirm'/);
    assert.equal((await clinic('patient', 'erase', patient.patient_number, '--dry-run', '--confirm')).code, 2);
  });

  it('needs the retention rules first: SETTING_REQUIRED, exit 1', async () => {
    const patient = createTestPatient(data.db, { first_name: 'Eva', last_name: 'Zwei' });
    const result = await clinic('patient', 'erase', patient.patient_number, '--dry-run', '--json');
    assert.equal(result.code, 1);
    assert.deepEqual(JSON.parse(result.stderr).detail.code, 'SETTING_REQUIRED');
    assert.equal(JSON.parse(result.stderr).detail.setting, 'retention');
  });

  it('prints each group with --dry-run, the interface shape with --json, and erases with --confirm', async () => {
    assert.equal((await clinic('settings', 'set-retention', '--country', 'DE')).code, 0);
    const patient = createTestPatient(data.db, { first_name: 'Eva', last_name: 'Drei', notes: 'bleibt nicht' });
    const dry = await clinic('patient', 'erase', patient.patient_number, '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    const lines = dry.stdout.split('\n');
    assert.equal(lines[0], `Erasure of ${patient.patient_number} Eva Drei under the retention of Germany (records 10 years)`);
    assert.match(lines[1]!, /^What +Count +Decision +Until +Rule$/);
    assert.match(dry.stdout, /^contact +\d+ +erased now$/m);
    assert.match(dry.stdout, /^audit +\d+ +kept +as the trail +AUDIT$/m);
    assert.match(dry.stdout, /A dry run: nothing was changed\./);

    const json = JSON.parse((await clinic('patient', 'erase', patient.id, '--dry-run', '--json')).stdout);
    assert.deepEqual(Object.keys(json), [
      'patient_id',
      'patient_number',
      'country',
      'records_years',
      'dry_run',
      'erased_at',
      'summary',
      'items',
    ]);
    assert.deepEqual(Object.keys(json.summary[0]), ['category', 'decision', 'rule', 'keep_until', 'count']);
    assert.deepEqual(Object.keys(json.items[0]), ['category', 'kind', 'id', 'number', 'decision', 'rule', 'keep_until']);
    assert.deepEqual([json.dry_run, json.erased_at, json.country], [true, null, 'DE']);

    const done = await clinic('patient', 'erase', patient.patient_number, '--confirm', '--json');
    assert.equal(done.code, 0, done.stderr);
    const erased = JSON.parse(done.stdout);
    assert.equal(erased.dry_run, false);
    assert.match(erased.erased_at, /^\d{4}-\d{2}-\d{2}T/);
    // Nothing was kept of her but the trail: the row is gone, her number is not found.
    const shown = await clinic('patient', 'show', patient.patient_number);
    assert.equal(shown.code, 1);
    assert.match(shown.stderr, /^error: PATIENT_NOT_FOUND/);
  });
});

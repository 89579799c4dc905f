import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DATABASE_FILE, openDatabase } from '../../src/db/open-database.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';

describe('openDatabase', () => {
  const data = useTestDatabase({ each: true });

  it('keeps the first connection of a process safe when the process opens a second one', async () => {
    // Opening must not close a descriptor of the database file: that would drop the first
    // connection's locks, and a command in another process would then take the WAL from under it.
    const second = openDatabase(data.dataDir);
    try {
      const before = createPatient(data.db, buildPatient({ last_name: 'Before' }));
      assert.equal((await runClinic(['patient', 'show', before.id, '--data', data.dataDir, '--json'])).code, 0);
      const after = createPatient(data.db, buildPatient({ last_name: 'After' }));
      const shown = await runClinic(['patient', 'show', after.id, '--data', data.dataDir, '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(JSON.parse(shown.stdout).patient.last_name, 'After');
    } finally {
      second.close();
    }
  });

  it('keeps the database file private to its user', { skip: process.platform === 'win32' }, () => {
    assert.equal(statSync(join(data.dataDir, DATABASE_FILE)).mode & 0o777, 0o600);
  });
});

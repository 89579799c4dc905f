import assert from 'node:assert/strict';
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SCHEMA_VERSION, SchemaTooNewError } from '../../src/db/migrations.js';
import { openDatabase, sqliteVersion } from '../../src/db/open-database.js';
import { DATABASE_FILE } from '../../src/db/data-directory.js';
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

  it('refuses a database that a newer program made, also where an older schema is kept as it is', () => {
    data.db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    data.db.close();
    for (const olderSchema of ['keep', 'refuse', undefined] as const) {
      assert.throws(
        () => openDatabase(data.dataDir, { olderSchema }),
        (error) => error instanceof SchemaTooNewError && error.found === SCHEMA_VERSION + 1 && error.supported === SCHEMA_VERSION,
        `olderSchema: ${olderSchema}`,
      );
    }
  });

  it(
    'gives the database file to its owner and group only (0660), and an older one (0600 or 0644) too',
    { skip: process.platform === 'win32' },
    () => {
      const path = join(data.dataDir, DATABASE_FILE);
      assert.equal((statSync(path).mode & 0o777).toString(8), '660');
      for (const older of [0o600, 0o644]) {
        data.db.close();
        chmodSync(path, older);
        openDatabase(data.dataDir).close();
        assert.equal((statSync(path).mode & 0o777).toString(8), '660');
      }
    },
  );
});

describe('sqliteVersion', () => {
  it("says the version of the driver's SQLite library", () => {
    assert.match(sqliteVersion(), /^3\.\d+\.\d+$/);
  });
});

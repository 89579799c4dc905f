// `clinic init` (src/cli/commands/init.ts): the data directory and its database made, safe to run again (decisions.md §8; docs/desk.md: every other command refuses a directory without a database).
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { createTestPatient } from '../../helpers/builders.js';
import { jsonOf } from '../../helpers/desk-output.js';
import { copyReleaseFixture, useDataDirs, useTestDatabase } from '../../helpers/fixtures.js';
import { programPath, runClinic } from '../../helpers/run-cli.js';

/** A data directory made by release 1.0.0 with its own commands (its README says what it holds). */
const RELEASE_1_0_0 = fileURLToPath(new URL('../../fixtures/release-1.0.0', import.meta.url));

describe('clinic init', () => {
  const data = useTestDatabase();
  const newDir = useDataDirs();

  it('makes a data directory and the folders on the way to it, with its database, saying it is ready', async () => {
    const dataDir = join(newDir(), 'praxis', 'data');
    const made = await runClinic(['init', '--data', dataDir]);
    assert.equal(made.code, 0, made.stderr);
    assert.equal(made.stdout, `data directory ${programPath(dataDir)} is ready (schema version ${SCHEMA_VERSION})\n`);
    assert.ok(existsSync(join(dataDir, 'clinic.db')), 'the database is there');
    assert.equal((await runClinic(['patient', 'find', 'x', '--data', dataDir])).code, 0, 'the next command finds a clinic');
  });

  it("runs again on a clinic's data directory, keeping everything it holds; --json names the directory and schema", async () => {
    const patient = createTestPatient(data.db, { first_name: 'Gerda', last_name: 'Bestand' });
    for (let run = 0; run < 2; run++) {
      assert.deepEqual(jsonOf(await runClinic(['init', '--data', data.dataDir, '--json'])), {
        data_dir: programPath(data.dataDir),
        schema_version: SCHEMA_VERSION,
      });
    }
    const found = jsonOf<{ id: string }[]>(await runClinic(['patient', 'find', 'Bestand', '--json', '--data', data.dataDir]));
    assert.deepEqual(
      found.map((row) => row.id),
      [patient.id],
    );
  });

  it('gives an empty (0-byte) clinic.db, which every other command refuses, its schema', async () => {
    const dataDir = newDir();
    writeFileSync(join(dataDir, 'clinic.db'), '');
    const refused = await runClinic(['patient', 'find', 'x', '--data', dataDir]);
    assert.deepEqual([refused.code, refused.stderr.split(':')[1]], [1, ' DATABASE_EMPTY']);
    assert.equal(jsonOf<{ schema_version: number }>(await runClinic(['init', '--data', dataDir, '--json'])).schema_version, SCHEMA_VERSION);
    assert.equal((await runClinic(['patient', 'find', 'x', '--data', dataDir])).code, 0);
  });

  it("brings a data directory of release 1.0.0 to this program's schema, keeping its patients", async () => {
    const dataDir = copyReleaseFixture(RELEASE_1_0_0, newDir());
    const before = await runClinic(['patient', 'show', 'P-000001', '--data', dataDir]);
    assert.deepEqual([before.code, before.stderr.split(':')[1]], [1, ' SCHEMA_UPGRADE_REQUIRED']);
    assert.equal(jsonOf<{ schema_version: number }>(await runClinic(['init', '--data', dataDir, '--json'])).schema_version, SCHEMA_VERSION);
    const shown = await runClinic(['patient', 'show', 'P-000001', '--data', dataDir]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^P-000001 {2}Jürgen Müller-Lüdenscheidt$/m);
  });
});

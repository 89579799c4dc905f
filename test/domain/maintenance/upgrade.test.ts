import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it, mock } from 'node:test';
import { acquireInstanceLock } from '../../../src/db/instance-lock.js';
import { SCHEMA_VERSION, schemaVersionOf } from '../../../src/db/migrations.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { UPGRADE_BACKUPS_DIR, upgradeBackupPath, upgradeDataDirectory } from '../../../src/domain/maintenance/upgrade.js';
import { AppError } from '../../../src/errors.js';
import { copyReleaseFixture, useDataDirs } from '../../helpers/fixtures.js';
import { readDatabase } from '../../helpers/release-database.js';

// `clinic upgrade` (and `serve` meeting an older schema): a verified backup of the old database,
// then the migration (docs/upgrading.md); the desk's wiring is test/cli/commands/upgrade.test.ts.

const newDir = useDataDirs();
const RELEASE_1_0_0 = 'test/fixtures/release-1.0.0';

/** A copy of release 1.0.0's data directory (schema 1), removed with the test file's other folders. */
function release100(): string {
  return copyReleaseFixture(RELEASE_1_0_0, newDir());
}

describe('upgrading a data directory', () => {
  afterEach(() => mock.timers.reset());

  it('names the backup for the old schema and the UTC moment, without the colon Windows forbids', () => {
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-30T23:05:09.123Z') });
    assert.equal(
      upgradeBackupPath('data', 6),
      join(process.cwd(), 'data', UPGRADE_BACKUPS_DIR, 'clinic-schema-6-2026-11-30T230509Z.tar.gz'),
    );
  });

  it("writes a verified backup of the older database into upgrade-backups/, then brings it to this program's schema", async () => {
    const dataDir = release100();
    const summary = await upgradeDataDirectory(dataDir);
    assert.deepEqual(
      { ...summary, backup: null },
      { data_dir: dataDir, schema_version_before: 1, schema_version: SCHEMA_VERSION, upgraded: true, backup: null },
    );
    const backups = readdirSync(join(dataDir, UPGRADE_BACKUPS_DIR));
    assert.equal(backups.length, 1, backups.join());
    assert.match(backups[0]!, /^clinic-schema-1-\d{4}-\d{2}-\d{2}T\d{6}Z\.tar\.gz$/);
    assert.equal(summary.backup?.file, join(dataDir, UPGRADE_BACKUPS_DIR, backups[0]!));
    assert.equal(summary.backup?.bytes, statSync(summary.backup.file).size);
    assert.equal(
      readDatabase(dataDir, (db) => schemaVersionOf(db)),
      SCHEMA_VERSION,
    );
  });

  it('writes the backup where it is told to', async () => {
    const dataDir = release100();
    const file = join(newDir(), 'before-upgrade.tar.gz');
    const summary = await upgradeDataDirectory(dataDir, { backupFile: file });
    assert.equal(summary.backup?.file, file);
    assert.ok(existsSync(file), 'the backup is where it was asked for');
    assert.equal(existsSync(join(dataDir, UPGRADE_BACKUPS_DIR)), false);
  });

  it('leaves a database already up to date as it is: no backup, no folder for one', async () => {
    const dataDir = newDir();
    openDatabase(dataDir).close();
    const before = statSync(join(dataDir, 'clinic.db')).mtimeMs;
    const summary = await upgradeDataDirectory(dataDir);
    assert.deepEqual([summary.upgraded, summary.backup, summary.schema_version_before], [false, null, SCHEMA_VERSION]);
    assert.equal(existsSync(join(dataDir, UPGRADE_BACKUPS_DIR)), false);
    assert.equal(statSync(join(dataDir, 'clinic.db')).mtimeMs, before);
  });

  it('refuses while a server holds the data directory (SERVER_ALREADY_RUNNING), changing nothing, and a folder without a database (NO_DATABASE)', async () => {
    const dataDir = release100();
    const lock = acquireInstanceLock(dataDir);
    assert.ok(lock !== undefined, 'the test holds the lock as a running server does');
    try {
      await assert.rejects(upgradeDataDirectory(dataDir), (error) => error instanceof AppError && error.code === 'SERVER_ALREADY_RUNNING');
    } finally {
      lock.release();
    }
    assert.equal(
      readDatabase(dataDir, (db) => schemaVersionOf(db)),
      1,
    );
    assert.equal(existsSync(join(dataDir, UPGRADE_BACKUPS_DIR)), false);
    await assert.rejects(upgradeDataDirectory(newDir()), (error) => error instanceof AppError && error.code === 'NO_DATABASE');
  });
});

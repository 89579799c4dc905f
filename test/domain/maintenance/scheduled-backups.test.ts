import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import {
  listScheduledBackups,
  removeAbandonedStaging,
  scheduledBackupName,
  writeScheduledBackup,
} from '../../../src/domain/maintenance/scheduled-backups.js';
import { useDataDirs } from '../../helpers/fixtures.js';

// The backups `clinic serve --backup-dir DIR --backup-keep N` writes on its schedule: named for
// their moment in UTC, rotated by those names only (docs/backup.md); the server's timing is
// test/server/workers/backup-schedule.test.ts.

const newDir = useDataDirs();

/** A data directory with its database, closed again. */
function clinicDir(): string {
  const dataDir = newDir();
  openDatabase(dataDir).close();
  return dataDir;
}

/** A backup folder holding a file for each of `names` (an archive's name is all rotation reads). */
function backupFolder(names: readonly string[]): string {
  const dir = newDir();
  for (const name of names) writeFileSync(join(dir, name), name);
  return dir;
}

describe('scheduled backups', () => {
  it('are named for the second they were taken, in UTC, without a colon', () => {
    assert.equal(scheduledBackupName(new Date('2026-11-26T03:00:00.987Z')), 'clinic-2026-11-26T030000Z.tar.gz');
    assert.equal(scheduledBackupName(new Date('2027-01-01T00:59:59+01:00')), 'clinic-2026-12-31T235959Z.tar.gz');
  });

  it("are listed oldest first, and only files of exactly the schedule's name: never what else IT keeps in the folder", async () => {
    const dir = backupFolder([
      'clinic-2026-11-27T030000Z.tar.gz',
      'clinic-2026-11-26T030000Z.tar.gz',
      'clinic-2026-13-01T030000Z.tar.gz',
      'clinic-2026-11-28T030000Z.tar.gz.part',
      'monthly-2026-11.tar.gz',
    ]);
    mkdirSync(join(dir, 'clinic-2026-11-29T030000Z.tar.gz'));
    symlinkSync(join(dir, 'monthly-2026-11.tar.gz'), join(dir, 'clinic-2026-11-30T030000Z.tar.gz'));
    assert.deepEqual(await listScheduledBackups(dir), [
      { name: 'clinic-2026-11-26T030000Z.tar.gz', takenAt: new Date('2026-11-26T03:00:00Z') },
      { name: 'clinic-2026-11-27T030000Z.tar.gz', takenAt: new Date('2026-11-27T03:00:00Z') },
    ]);
    assert.deepEqual(await listScheduledBackups(join(dir, 'missing')), []);
  });

  it('keep the newest N with the one just written, removing the oldest of the schedule and nothing else', async () => {
    const backupDir = backupFolder([
      'clinic-2026-11-27T030000Z.tar.gz',
      'clinic-2026-11-28T030000Z.tar.gz',
      'clinic-2026-11-29T030000Z.tar.gz',
      'monthly-2026-10.tar.gz',
    ]);
    const result = await writeScheduledBackup(clinicDir(), backupDir, 2, { now: new Date('2026-11-30T03:00:00Z') });
    assert.equal(result.summary.file, join(backupDir, 'clinic-2026-11-30T030000Z.tar.gz'));
    assert.deepEqual(result.removed, ['clinic-2026-11-28T030000Z.tar.gz', 'clinic-2026-11-27T030000Z.tar.gz']);
    assert.equal(result.rotationFailure, undefined);
    assert.deepEqual(readdirSync(backupDir).sort(), [
      'clinic-2026-11-29T030000Z.tar.gz',
      'clinic-2026-11-30T030000Z.tar.gz',
      'monthly-2026-10.tar.gz',
    ]);
  });

  it('keep the one just written when the clock went back behind the names already there', async () => {
    const backupDir = backupFolder(['clinic-2027-01-01T030000Z.tar.gz', 'clinic-2027-01-02T030000Z.tar.gz']);
    const result = await writeScheduledBackup(clinicDir(), backupDir, 2, { now: new Date('2026-11-30T03:00:00Z') });
    assert.deepEqual(result.removed, ['clinic-2027-01-01T030000Z.tar.gz']);
    assert.deepEqual(readdirSync(backupDir).sort(), ['clinic-2026-11-30T030000Z.tar.gz', 'clinic-2027-01-02T030000Z.tar.gz']);
  });

  it('remove the staging folders of writers that are gone or of this process, and keep those of a backup still running', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const backupDir = newDir();
    const names = [
      `.clinic-backup-${gone}-aB3dE9`,
      `.clinic-backup-${process.pid}-Zz0000`,
      '.clinic-backup-1-Kq7pLm',
      '.clinic-backup-notes',
    ];
    for (const name of names) mkdirSync(join(backupDir, name, 'documents'), { recursive: true });
    const removed = await removeAbandonedStaging(backupDir);
    assert.deepEqual(removed.sort(), names.slice(0, 2).sort());
    // pid 1 runs (init, or the container's first process): its backup may still finish.
    assert.deepEqual(readdirSync(backupDir).sort(), ['.clinic-backup-1-Kq7pLm', '.clinic-backup-notes']);
  });
});

import assert from 'node:assert/strict';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { checkHealth, MIN_FREE_BYTES } from '../../../src/domain/maintenance/health.js';
import { connectionRunner } from '../../../src/domain/use-case.js';
import { PROGRAM_VERSION } from '../../../src/version.js';
import { dataDirOn, mountTmpfs } from '../../helpers/faults.js';
import { useDataDirs } from '../../helpers/fixtures.js';

// What GET /health says a monitor (clinic-api-1.2.md, Network, "Health"): ok, or unavailable and why.

const newDir = useDataDirs();
const STARTED_AT = '2026-11-30T08:00:00.000Z';

describe('checkHealth', () => {
  it('is ok with the database read and its write lock taken, the free bytes of the disk, the version and the start', async () => {
    const dataDir = newDir();
    const db = openDatabase(dataDir);
    try {
      const health = await checkHealth(db, connectionRunner(db), dataDir, STARTED_AT);
      const disk = await statfs(dataDir);
      assert.deepEqual(
        { ...health, disk_free_bytes: typeof health.disk_free_bytes },
        {
          status: 'ok',
          version: PROGRAM_VERSION,
          database: 'ok',
          disk_free_bytes: 'number',
          started_at: STARTED_AT,
        },
      );
      // Another process may write meanwhile: the same disk, give or take a few MiB.
      assert.ok(Math.abs(health.disk_free_bytes! - disk.bavail * disk.bsize) < 64 * 1024 * 1024, String(health.disk_free_bytes));
    } finally {
      db.close();
    }
  });

  it('is unavailable, database busy, while another connection holds the write lock past the wait, and ok once it lets go', async () => {
    const dataDir = newDir();
    const db = openDatabase(dataDir, { busyWait: 'fail' });
    const other = openDatabase(dataDir);
    try {
      other.exec('BEGIN IMMEDIATE');
      const busy = await checkHealth(db, connectionRunner(db), dataDir, STARTED_AT);
      assert.deepEqual([busy.status, busy.database, busy.version], ['unavailable', 'busy', PROGRAM_VERSION]);
      other.exec('ROLLBACK');
      assert.equal((await checkHealth(db, connectionRunner(db), dataDir, STARTED_AT)).status, 'ok');
    } finally {
      other.close();
      db.close();
    }
  });

  it('is unavailable, database failed, when the database cannot be read at all, and says so rather than throwing', async () => {
    const dataDir = newDir();
    const db = openDatabase(dataDir);
    db.close();
    const health = await checkHealth(db, connectionRunner(db), dataDir, STARTED_AT);
    assert.deepEqual([health.status, health.database], ['unavailable', 'failed']);
  });

  it('is unavailable, database full, on a disk with less than 64 MiB free', async (t) => {
    const tmpfs = mountTmpfs(t, 32 * 1024);
    if (tmpfs === undefined) return;
    try {
      const dataDir = dataDirOn(tmpfs);
      const db = openDatabase(dataDir);
      try {
        const health = await checkHealth(db, connectionRunner(db), dataDir, STARTED_AT);
        assert.ok(health.disk_free_bytes! < MIN_FREE_BYTES, String(health.disk_free_bytes));
        assert.deepEqual([health.status, health.database], ['unavailable', 'full']);
      } finally {
        db.close();
      }
    } finally {
      tmpfs.unmount();
    }
  });

  it('gives no free bytes where the system would not say, and is not unavailable for that', async () => {
    const dataDir = newDir();
    const db = openDatabase(dataDir);
    try {
      const health = await checkHealth(db, connectionRunner(db), join(dataDir, 'gone'), STARTED_AT);
      assert.deepEqual([health.status, health.database, health.disk_free_bytes], ['ok', 'ok', null]);
    } finally {
      db.close();
    }
  });
});

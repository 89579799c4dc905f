import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { documentFilePath, moveIntoPlace, tempFilePath } from '../../../src/db/document-files.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { ABANDONED_UPLOAD_AGE_MS, recoverInterruptedUploads } from '../../../src/domain/documents/recover-uploads.js';
import { runChecks } from '../../../src/domain/maintenance/check.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient } from '../../helpers/builders.js';
import { addInterruptedUpload } from '../../helpers/module-tables.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { makeDataDir } from '../../helpers/fixtures.js';

/** A temporary file with no row, last written `ageMs` ago. */
function orphan(dataDir: string, name: string, ageMs: number): string {
  const path = join(dataDir, 'tmp', name);
  mkdirSync(join(dataDir, 'tmp'), { recursive: true });
  writeFileSync(path, 'partial');
  const when = (Date.now() - ageMs) / 1000;
  utimesSync(path, when, when);
  return path;
}

describe('recoverInterruptedUploads', () => {
  const data = useTestDatabase();
  let patientId: string;
  before(() => {
    patientId = createPatient(data.db, buildPatient()).id;
  });

  it('moves the file of a committed upload into place, after which clinic check finds nothing', async () => {
    const content = Buffer.from('%PDF-1.7 committed before the crash');
    const id = addInterruptedUpload(data.db, data.dataDir, patientId, content);
    const before = await runChecks(data.db, data.dataDir);
    assert.match(before.find((c) => c.name === 'document_files')!.findings[0]!, /waits in tmp\/; the next `clinic serve` puts it in place/);

    assert.deepEqual(await recoverInterruptedUploads(data.db, data.dataDir), { completed: 1, removed: 0, removedBytes: 0 });
    assert.deepEqual(readFileSync(documentFilePath(data.dataDir, patientId, id)), content);
    assert.equal(existsSync(tempFilePath(data.dataDir, id)), false);
    for (const outcome of await runChecks(data.db, data.dataDir)) assert.deepEqual(outcome.findings, [], outcome.name);
  });

  it('removes temporary files without a row whose writer is gone, however young, and keeps those of a running writer', async () => {
    const running = orphan(data.dataDir, `${randomUUID()}.${process.ppid}.part`, 1000);
    const crashed = orphan(data.dataDir, `${randomUUID()}.999999999.part`, 1000);
    const ownBeforeStart = orphan(data.dataDir, `${randomUUID()}.${process.pid}.part`, 1000);
    const recentOld = orphan(data.dataDir, `${randomUUID()}.part`, 1000);
    const abandonedOld = orphan(data.dataDir, `${randomUUID()}.part`, ABANDONED_UPLOAD_AGE_MS + 60_000);
    const foreign = orphan(data.dataDir, 'upload-from-an-older-version.part', ABANDONED_UPLOAD_AGE_MS + 60_000);
    assert.deepEqual(await recoverInterruptedUploads(data.db, data.dataDir), {
      completed: 0,
      removed: 4,
      removedBytes: 4 * 'partial'.length,
    });
    assert.deepEqual(readdirSync(join(data.dataDir, 'tmp')).sort(), [running, recentOld].map((path) => path.split('/').at(-1)).sort());
    assert.equal(
      [crashed, ownBeforeStart, abandonedOld, foreign].some((path) => existsSync(path)),
      false,
    );
    rmSync(running);
    rmSync(recentOld);
  });

  it('lets an upload that finds its file already moved by a recovery finish without error', async () => {
    const content = Buffer.from('moved by a server starting meanwhile');
    const id = addInterruptedUpload(data.db, data.dataDir, patientId, content);
    const temp = tempFilePath(data.dataDir, id);
    await recoverInterruptedUploads(data.db, data.dataDir);
    await moveIntoPlace(data.dataDir, temp, patientId, id);
    assert.deepEqual(readFileSync(documentFilePath(data.dataDir, patientId, id)), content);
  });

  it('does nothing without a tmp/ folder', async () => {
    const empty = makeDataDir();
    const other = openDatabase(empty);
    try {
      assert.deepEqual(await recoverInterruptedUploads(other, empty), { completed: 0, removed: 0, removedBytes: 0 });
    } finally {
      other.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

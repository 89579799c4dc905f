// src/domain/classify-error.ts: what a thrown value means for the one who asked (decisions.md §1; clinic-api-1.2.md, "Audit trail").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SchemaTooNewError } from '../../src/db/migrations.js';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { classifyError, needsLogging, unrecordedReadError } from '../../src/domain/classify-error.js';
import { AppError, errors, ValidationError } from '../../src/errors.js';
import { useTestDatabase } from '../helpers/fixtures.js';

// What a thrown value means for the one who asked (decisions.md §1; clinic-api-1.2.md, "Audit
// trail": a read whose events cannot be stored shows nothing): a coded refusal, or a bug that is
// logged and shown as INTERNAL. Storage faults are made for real, on a SQLite file.

/** What `work` throws; fails when it throws nothing. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  assert.fail('nothing was thrown');
}

/** [code, status] of a coded refusal, or what else it is. */
const codeOf = (refusal: unknown) => (refusal instanceof AppError ? [refusal.code, refusal.status] : refusal);

/** SQLITE_FULL: the database may grow no page more, and a row needs several. */
function diskFull(db: Db): unknown {
  db.exec('CREATE TABLE filler (bytes BLOB)');
  const { page_count } = db.prepare('PRAGMA page_count').get() as { page_count: number };
  db.pragma(`max_page_count = ${page_count}`);
  return thrownBy(() => db.prepare('INSERT INTO filler VALUES (randomblob(100000))').run());
}

describe('classifying what was thrown', () => {
  const data = useTestDatabase({ each: true });

  it('passes coded refusals and validation errors as they are, and a newer database as DATABASE_TOO_NEW', () => {
    const refusal = errors.patientNotFound();
    const invalid = new ValidationError([]);
    assert.equal(classifyError(refusal), refusal);
    assert.equal(classifyError(invalid), invalid);
    assert.deepEqual(codeOf(classifyError(new SchemaTooNewError(99, 21))), ['DATABASE_TOO_NEW', 409]);
    assert.deepEqual([needsLogging(refusal), needsLogging(invalid)], [false, false], "a client's mistake is not news");
  });

  it('takes anything else for a bug: no refusal to show, logged, and a read refused by it stays what it is', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    assert.equal(classifyError(bug), undefined);
    assert.equal(needsLogging(bug), true);
    assert.equal(unrecordedReadError(bug), bug);
    const notFound = Object.assign(new Error('no such file'), { code: 'ENOENT' });
    assert.equal(classifyError(notFound), undefined, 'a missing file is no storage fault the client can act on');
  });

  it('answers a write lock held by another connection past the wait as 503 DATABASE_BUSY, not logged', () => {
    const other = openDatabase(data.dataDir, { busyWait: 'fail' });
    data.db.exec('BEGIN IMMEDIATE');
    try {
      const busy = thrownBy(() => other.exec('BEGIN IMMEDIATE'));
      assert.deepEqual(codeOf(classifyError(busy)), ['DATABASE_BUSY', 503]);
      assert.equal(needsLogging(busy), false, 'a busy lock is not news');
      assert.equal(unrecordedReadError(busy), busy, 'a read meeting it is 503, not 507');
    } finally {
      data.db.exec('ROLLBACK');
      other.close();
    }
  });

  it('answers a full disk as 507 STORAGE_FULL, logged, and a read whose events found it full as 507 STORAGE_FAILED saying so', () => {
    const full = diskFull(data.db);
    assert.deepEqual(codeOf(classifyError(full)), ['STORAGE_FULL', 507]);
    assert.equal(needsLogging(full), true);
    const unrecorded = unrecordedReadError(full);
    assert.deepEqual(codeOf(unrecorded), ['STORAGE_FAILED', 507]);
    assert.match((unrecorded as AppError).message, /its audit event could not be stored \(the clinic computer's disk is full\)/);
    assert.equal((unrecorded as AppError).cause, full, 'the cause kept for the log');
  });

  it('answers a database that cannot be written as 500 STORAGE_FAILED, logged, and a read that met it as 507', () => {
    data.db.pragma('query_only = 1');
    const readOnly = thrownBy(() => data.db.exec("INSERT INTO settings (key, value) VALUES ('x', 'y')"));
    data.db.pragma('query_only = 0');
    assert.deepEqual(codeOf(classifyError(readOnly)), ['STORAGE_FAILED', 500]);
    assert.equal(needsLogging(readOnly), true);
    const unrecorded = unrecordedReadError(readOnly);
    assert.deepEqual(codeOf(unrecorded), ['STORAGE_FAILED', 507]);
    assert.match((unrecorded as AppError).message, /the disk or the database file failed/);
  });
});

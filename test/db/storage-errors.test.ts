// What a disk or lock failure means for a request (decisions.md §1: 503 DATABASE_BUSY; errors.ts: STORAGE_FULL, STORAGE_FAILED).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteDriver } from '../../src/db/drivers/sqlite-driver.js';
import { openDatabase } from '../../src/db/open-database.js';
import { isDatabaseBusy, storageFault } from '../../src/db/storage-errors.js';
import { errors } from '../../src/errors.js';
import { useDataDirs, useTestDatabase } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/thrown.js';

/** An error as node:sqlite throws it: the extended result code as a number under ERR_SQLITE_ERROR. */
const nodeSqliteError = (errcode: number): Error => Object.assign(new Error('node:sqlite failed'), { code: 'ERR_SQLITE_ERROR', errcode });

/** An error as better-sqlite3 throws it: a SqliteError carrying the code's name. */
const betterSqlite3Error = (code: string): Error => new Database.SqliteError('better-sqlite3 failed', code);

/** An error of a file operation (fs), with its errno code. */
const fileError = (code: string): Error => Object.assign(new Error(`${code}: failed`), { code, syscall: 'write' });

/** What storageFault makes of each error, by a label that names it. */
const faultsOf = (cases: [string, unknown][]) => cases.map(([label, error]) => [label, storageFault(error)]);

describe('storage errors', () => {
  const data = useTestDatabase();
  const newDataDir = useDataDirs();

  it('takes a write lock another connection holds past the wait for busy, and nothing else', () => {
    const second = openDatabase(data.dataDir, { busyWait: 'fail' });
    let error: unknown;
    data.db.exec('BEGIN IMMEDIATE');
    try {
      error = thrownBy(() => second.exec("INSERT INTO settings (key, value) VALUES ('currency', 'CHF')"));
    } finally {
      data.db.exec('ROLLBACK');
      second.close();
    }
    assert.equal(isDatabaseBusy(error), true, `a busy write lock: ${String(error)}`);
    assert.equal(storageFault(error), 'busy');
    // The server's commit groups retry these: each code SQLite gives for a lock held too long, in both drivers' shapes.
    const busy: [string, unknown][] = [
      ['SQLITE_BUSY', nodeSqliteError(5)],
      ['SQLITE_BUSY_RECOVERY', nodeSqliteError(261)],
      ['SQLITE_BUSY_RECOVERY', betterSqlite3Error('SQLITE_BUSY_RECOVERY')],
      ['SQLITE_BUSY_SNAPSHOT', nodeSqliteError(517)],
      ['SQLITE_BUSY_TIMEOUT', betterSqlite3Error('SQLITE_BUSY_TIMEOUT')],
      ['SQLITE_LOCKED', nodeSqliteError(6)],
      ['SQLITE_LOCKED_SHAREDCACHE', nodeSqliteError(262)],
    ];
    assert.deepEqual(
      busy.map(([label, error]) => [label, isDatabaseBusy(error)]),
      busy.map(([label]) => [label, true]),
    );
    const notBusy: [string, unknown][] = [
      ["a file's EBUSY", fileError('EBUSY')],
      ['SQLITE_FULL', nodeSqliteError(13)],
      ['the refusal itself', errors.databaseBusy()],
      ['nothing', null],
    ];
    assert.deepEqual(
      notBusy.map(([label, error]) => [label, isDatabaseBusy(error)]),
      notBusy.map(([label]) => [label, false]),
    );
  });

  it("takes a database past its last page for full, and a file write's ENOSPC and EDQUOT too", () => {
    const db = sqliteDriver().open(join(newDataDir(), 'small.db'));
    let error: unknown;
    try {
      // A disk that fills is a database that can grow no more: SQLITE_FULL, as max_page_count gives it.
      db.exec('CREATE TABLE filler (bytes BLOB NOT NULL); PRAGMA max_page_count = 8');
      error = thrownBy(() => {
        for (let row = 0; row < 100; row++) db.prepare('INSERT INTO filler VALUES (randomblob(4096))').run();
      });
    } finally {
      db.close();
    }
    assert.equal(storageFault(error), 'full', `a full database: ${String(error)}`);
    assert.deepEqual(
      faultsOf([
        ['node:sqlite SQLITE_FULL', nodeSqliteError(13)],
        ['better-sqlite3 SQLITE_FULL', betterSqlite3Error('SQLITE_FULL')],
        ['ENOSPC', fileError('ENOSPC')],
        ['EDQUOT', fileError('EDQUOT')],
      ]),
      [
        ['node:sqlite SQLITE_FULL', 'full'],
        ['better-sqlite3 SQLITE_FULL', 'full'],
        ['ENOSPC', 'full'],
        ['EDQUOT', 'full'],
      ],
    );
  });

  it('takes a file that is no database, a read-only one, a failing disk or a folder the program may not write for failed', () => {
    const dir = newDataDir();
    writeFileSync(join(dir, 'letter.db'), 'Dear Dr. Gruber, this is a letter, not a database.'.repeat(100));
    const notADatabase = sqliteDriver().open(join(dir, 'letter.db'));
    const damaged = thrownBy(() => notADatabase.prepare('SELECT count(*) FROM sqlite_schema').get());
    notADatabase.close();
    const readOnly = sqliteDriver().open(join(data.dataDir, 'clinic.db'), { readOnly: true });
    const unwritable = thrownBy(() => readOnly.exec("INSERT INTO settings (key, value) VALUES ('currency', 'CHF')"));
    readOnly.close();
    assert.deepEqual(
      faultsOf([
        ['not a database', damaged],
        ['read-only', unwritable],
        ['SQLITE_IOERR_WRITE', nodeSqliteError(778)],
        ['SQLITE_IOERR_FSYNC', betterSqlite3Error('SQLITE_IOERR_FSYNC')],
        ['SQLITE_READONLY_DIRECTORY', nodeSqliteError(1544)],
        ['SQLITE_CORRUPT_INDEX', nodeSqliteError(779)],
        ['SQLITE_CANTOPEN', betterSqlite3Error('SQLITE_CANTOPEN')],
        ['SQLITE_PERM', nodeSqliteError(3)],
        ...['EIO', 'EROFS', 'EACCES', 'EPERM', 'EFBIG'].map((code): [string, unknown] => [code, fileError(code)]),
      ]),
      [
        'not a database',
        'read-only',
        'SQLITE_IOERR_WRITE',
        'SQLITE_IOERR_FSYNC',
        'SQLITE_READONLY_DIRECTORY',
        'SQLITE_CORRUPT_INDEX',
        'SQLITE_CANTOPEN',
        'SQLITE_PERM',
        'EIO',
        'EROFS',
        'EACCES',
        'EPERM',
        'EFBIG',
      ].map((label) => [label, 'failed']),
    );
  });

  it('leaves a refusal, a bug, a missing file and any other SQLite error to the caller (no storage fault)', () => {
    const duplicate = thrownBy(() => data.db.exec("INSERT INTO settings (key, value) VALUES ('x', '1'), ('x', '2')"));
    assert.deepEqual(
      faultsOf([
        ['a UNIQUE constraint', duplicate],
        ['SQLITE_ERROR', nodeSqliteError(1)],
        ['SQLITE_INTERRUPT', betterSqlite3Error('SQLITE_INTERRUPT')],
        ['a refusal', errors.storageFull()],
        ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
        ['ENOENT', fileError('ENOENT')],
        // A prefix is SQLite's only on SQLite's own error: another error's code proves nothing.
        ['a look-alike code', Object.assign(new Error('not SQLite'), { code: 'SQLITE_IOERR_WRITE' })],
        ['nothing', null],
      ]),
      [
        ['a UNIQUE constraint', undefined],
        ['SQLITE_ERROR', undefined],
        ['SQLITE_INTERRUPT', undefined],
        ['a refusal', undefined],
        ['a bug', undefined],
        ['ENOENT', undefined],
        ['a look-alike code', undefined],
        ['nothing', undefined],
      ],
    );
  });
});

// SQLite's result codes by name, whichever driver threw (design-choices.md, "Windows and the two SQLite drivers").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteDriver, type Db } from '../../src/db/drivers/sqlite-driver.js';
import { resultCodeName, sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { thrownBy } from '../helpers/thrown.js';

describe('SQLite result codes by name', () => {
  it('names a primary code and its extended codes as sqlite3.h does (primary | n << 8, n from 1)', () => {
    const names: [number, string][] = [
      [5, 'SQLITE_BUSY'],
      [261, 'SQLITE_BUSY_RECOVERY'],
      [517, 'SQLITE_BUSY_SNAPSHOT'],
      [773, 'SQLITE_BUSY_TIMEOUT'],
      [6, 'SQLITE_LOCKED'],
      [13, 'SQLITE_FULL'],
      [778, 'SQLITE_IOERR_WRITE'],
      [1544, 'SQLITE_READONLY_DIRECTORY'],
      [779, 'SQLITE_CORRUPT_INDEX'],
      [26, 'SQLITE_NOTADB'],
      [275, 'SQLITE_CONSTRAINT_CHECK'],
      [787, 'SQLITE_CONSTRAINT_FOREIGNKEY'],
      [1299, 'SQLITE_CONSTRAINT_NOTNULL'],
      [2067, 'SQLITE_CONSTRAINT_UNIQUE'],
      [279, 'SQLITE_AUTH_USER'],
    ];
    assert.deepEqual(
      names.map(([code]) => [code, resultCodeName(code)]),
      names,
    );
  });

  it('names the last extended code of a list, and one past it, or one of a code that has none, by the primary code', () => {
    assert.equal(resultCodeName(10 | (34 << 8)), 'SQLITE_IOERR_IN_PAGE');
    assert.equal(resultCodeName(10 | (35 << 8)), 'SQLITE_IOERR');
    assert.equal(resultCodeName(19 | (12 << 8)), 'SQLITE_CONSTRAINT_DATATYPE');
    assert.equal(resultCodeName(19 | (13 << 8)), 'SQLITE_CONSTRAINT');
    assert.equal(resultCodeName(13 | (1 << 8)), 'SQLITE_FULL');
  });

  it('gives a code SQLite names no error by its number: success, a row, one past the last', () => {
    assert.deepEqual([0, 100, 101, 29, 29 | (1 << 8)].map(resultCodeName), [
      'SQLITE_UNKNOWN_0',
      'SQLITE_UNKNOWN_100',
      'SQLITE_UNKNOWN_101',
      'SQLITE_UNKNOWN_29',
      'SQLITE_UNKNOWN_285',
    ]);
  });

  describe(`the errors ${sqliteDriver().name} throws`, () => {
    let db: Db;
    before(() => {
      db = sqliteDriver().open(':memory:');
      db.exec(`PRAGMA foreign_keys = ON;
        CREATE TABLE doctors (id TEXT PRIMARY KEY) STRICT;
        CREATE TABLE visits (id INTEGER PRIMARY KEY, doctor_id TEXT NOT NULL REFERENCES doctors (id), minutes INTEGER CHECK (minutes > 0)) STRICT;
        INSERT INTO doctors VALUES ('d1');`);
    });
    after(() => db.close());

    it('reads the code of a statement the database refused, by the name better-sqlite3 gives it, whichever driver threw', () => {
      const refused = (sql: string) => sqliteErrorCode(thrownBy(() => db.exec(sql)));
      assert.deepEqual(
        [
          refused("INSERT INTO doctors VALUES ('d1')"),
          refused('INSERT INTO visits (doctor_id) VALUES (NULL)'),
          refused("INSERT INTO visits (doctor_id) VALUES ('d2')"),
          refused("INSERT INTO visits (doctor_id, minutes) VALUES ('d1', 0)"),
          refused("INSERT INTO visits (doctor_id, minutes) VALUES ('d1', 'ten')"),
          refused('SELECT * FROM nowhere'),
        ],
        [
          'SQLITE_CONSTRAINT_PRIMARYKEY',
          'SQLITE_CONSTRAINT_NOTNULL',
          'SQLITE_CONSTRAINT_FOREIGNKEY',
          'SQLITE_CONSTRAINT_CHECK',
          'SQLITE_CONSTRAINT_DATATYPE',
          'SQLITE_ERROR',
        ],
      );
    });
  });

  it("reads node:sqlite's number (its extended result code) and better-sqlite3's name alike", () => {
    // node:sqlite's shape: the number under ERR_SQLITE_ERROR; better-sqlite3's: a SqliteError with the name.
    const full = Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 });
    const ioWrite = Object.assign(new Error('disk I/O error'), { code: 'ERR_SQLITE_ERROR', errcode: 778 });
    assert.equal(sqliteErrorCode(full), 'SQLITE_FULL');
    assert.equal(sqliteErrorCode(ioWrite), 'SQLITE_IOERR_WRITE');
    assert.equal(sqliteErrorCode(new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE')), 'SQLITE_IOERR_WRITE');
  });

  it("takes nothing for SQLite's that is not: an errno, a look-alike code, a plain object, no error at all", () => {
    const notSqlite: unknown[] = [
      Object.assign(new Error('no room'), { code: 'ENOSPC', errno: -28 }),
      // Only a SqliteError's code is SQLite's: another error's text is no result code.
      Object.assign(new Error('looks like it'), { code: 'SQLITE_BUSY' }),
      Object.assign(new Error('no number'), { code: 'ERR_SQLITE_ERROR', errcode: '5' }),
      new Database.SqliteError('a code of another kind', 'EBUSY'),
      { name: 'SqliteError', code: 'SQLITE_BUSY', message: 'not an Error' },
      { code: 'ERR_SQLITE_ERROR', errcode: 5 },
      'SQLITE_BUSY',
      null,
      undefined,
    ];
    assert.deepEqual(
      notSqlite.map(sqliteErrorCode),
      notSqlite.map(() => undefined),
    );
  });
});

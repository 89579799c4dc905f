// A connection behaves as better-sqlite3's whichever driver made it: what node-sqlite.ts reproduces (design-choices.md).
// Run on the driver CLINIC_SQLITE_DRIVER names: better-sqlite3 in `npm test`, node:sqlite in `npm run test:node-sqlite`.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { nodeSqliteDriver } from '../../../src/db/drivers/node-sqlite.js';
import { sqliteDriver, type Db } from '../../../src/db/drivers/sqlite-driver.js';
import { sqliteErrorCode } from '../../../src/db/sqlite-result-codes.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';

const driver = sqliteDriver();
const hasNodeSqlite = process.getBuiltinModule?.('node:sqlite') !== undefined;

describe(`a ${driver.name} connection`, () => {
  const newDataDir = useDataDirs();
  let path: string;
  let db: Db;
  beforeEach(() => {
    path = join(newDataDir(), 'clinic.db');
    db = driver.open(path, { busyTimeoutMs: 0 });
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE visits (id INTEGER PRIMARY KEY, minutes INTEGER, fee REAL, note TEXT, hash BLOB, at ANY) STRICT`);
  });
  afterEach(() => db.close());
  const count = () => db.prepare<[], { n: number }>('SELECT count(*) AS n FROM visits').get()?.n;

  it('stores and finds numbers, BigInts and bytes as the values they are, positional or named, ignoring a name the statement does not use', () => {
    const insert = db.prepare('INSERT INTO visits (minutes, fee, note, hash, at) VALUES (@minutes, @fee, @note, @hash, @at)');
    const hash = Buffer.from('a5'.repeat(32), 'hex');
    insert.run({ minutes: 30, fee: 85.5, note: 'first', hash, at: 1_796_000_000_000n, unused: 'ignored' });
    insert.run({ minutes: Number.MAX_SAFE_INTEGER, fee: 0.1, note: null, hash: null, at: 'not a time' });
    const rows = db
      .prepare<[number], Record<string, unknown>>(
        'SELECT minutes, fee, note, hash, typeof(at) AS at_type FROM visits WHERE minutes >= ? ORDER BY id',
      )
      .all(30);
    assert.deepEqual(rows, [
      { minutes: 30, fee: 85.5, note: 'first', hash: rows[0]!.hash, at_type: 'integer' },
      { minutes: Number.MAX_SAFE_INTEGER, fee: 0.1, note: null, hash: null, at_type: 'text' },
    ]);
    assert.ok(Buffer.from(rows[0]!.hash as Uint8Array).equals(hash), 'the 32 bytes of a hash read back as they were bound');
    assert.deepEqual(db.prepare('SELECT id FROM visits WHERE minutes = ? AND fee = ? AND hash = ?').get(30, 85.5, hash), { id: 1 });
  });

  it("reads a statement prepared for arrays as arrays of its columns in the SELECT's order, whichever way it reads them; others stay objects", () => {
    db.exec("INSERT INTO visits (minutes, note) VALUES (30, 'a'), (45, 'b')");
    const arrays = db.prepareArrays<[number]>('SELECT note, minutes FROM visits WHERE minutes >= ? ORDER BY id');
    assert.deepStrictEqual(arrays.get(40), ['b', 45]);
    assert.deepStrictEqual(arrays.all(0), [
      ['a', 30],
      ['b', 45],
    ]);
    assert.deepStrictEqual(
      [...arrays.iterate(0)],
      [
        ['a', 30],
        ['b', 45],
      ],
    );
    assert.equal(arrays.get(99), undefined);
    assert.deepStrictEqual(db.prepare('SELECT note, minutes FROM visits WHERE minutes >= ? ORDER BY id').get(40), {
      note: 'b',
      minutes: 45,
    });
  });

  it("reads a statement's rows as plain objects, whichever way it reads them; a pragma's rows, or its first value", () => {
    db.exec("INSERT INTO visits (minutes, note) VALUES (30, 'a'), (45, 'b')");
    const select = db.prepare<[], { minutes: number; note: string }>('SELECT minutes, note FROM visits ORDER BY id');
    const read = [select.get(), ...select.all(), ...select.iterate()];
    assert.deepEqual(
      read.map((row) => Object.getPrototypeOf(row) === Object.prototype),
      [true, true, true, true, true],
    );
    // deepStrictEqual compares prototypes too: a row equals the object a test writes.
    assert.deepStrictEqual(read, [
      { minutes: 30, note: 'a' },
      { minutes: 30, note: 'a' },
      { minutes: 45, note: 'b' },
      { minutes: 30, note: 'a' },
      { minutes: 45, note: 'b' },
    ]);
    // A pragma's rows, or with `simple` the first column of the first row.
    const rows = db.pragma('table_info(visits)') as { name: string }[];
    assert.deepEqual(
      [db.pragma('user_version', { simple: true }), rows.map((column) => column.name)],
      [0, ['id', 'minutes', 'fee', 'note', 'hash', 'at']],
    );
  });

  it("commits what a transaction's function did, or undoes all of it and throws its error; one inside another is a savepoint", () => {
    const insert = db.prepare('INSERT INTO visits (minutes) VALUES (?)');
    const book = db.transaction((minutes: number) => {
      insert.run(minutes);
      assert.equal(db.inTransaction, true, 'inside the function');
      return minutes;
    });
    assert.equal(book(30), 30);
    const refused = new Error('the slot is taken');
    assert.equal(
      thrownBy(() =>
        db.transaction(() => {
          insert.run(45);
          throw refused;
        })(),
      ),
      refused,
    );
    db.transaction(() => {
      insert.run(60);
      // A nested failure undoes its own part only; a nested success stays; the outer transaction goes on and commits all.
      assert.throws(() =>
        db.transaction(() => {
          insert.run(90);
          throw refused;
        })(),
      );
      db.transaction(() => insert.run(20))();
      insert.run(15);
    }).immediate();
    assert.deepEqual(
      db
        .prepare<[], { minutes: number }>('SELECT minutes FROM visits ORDER BY id')
        .all()
        .map((row) => row.minutes),
      [30, 60, 20, 15],
    );
    assert.equal(db.inTransaction, false);
  });

  it('refuses a transaction whose function returns a promise, and keeps nothing of it', () => {
    const insert = db.prepare('INSERT INTO visits (minutes) VALUES (?)');
    // Its promise is the point: a transaction cannot wait.
    const asynchronous = db.transaction(async () => {
      insert.run(30);
    });
    assert.throws(() => void asynchronous(), { name: 'TypeError', message: 'Transaction function cannot return a promise' });
    assert.deepEqual([count(), db.inTransaction], [0, false]);
  });

  it('undoes a transaction whose COMMIT fails, so the connection is left with none open', () => {
    db.exec(`PRAGMA foreign_keys = ON;
      CREATE TABLE doctors (id TEXT PRIMARY KEY) STRICT;
      CREATE TABLE shifts (doctor_id TEXT REFERENCES doctors (id) DEFERRABLE INITIALLY DEFERRED) STRICT`);
    // A deferred foreign key is checked at COMMIT: the commit fails and SQLite leaves the transaction open.
    const error = thrownBy(() => db.transaction(() => db.prepare("INSERT INTO shifts VALUES ('nobody')").run())());
    assert.equal(sqliteErrorCode(error), 'SQLITE_CONSTRAINT_FOREIGNKEY');
    assert.equal(db.inTransaction, false);
    assert.deepEqual(db.prepare('SELECT count(*) AS n FROM shifts').get(), { n: 0 });
    db.transaction(() => db.prepare("INSERT INTO doctors VALUES ('d1')").run())();
    assert.deepEqual(db.prepare('SELECT id FROM doctors').all(), [{ id: 'd1' }]);
  });

  it('takes the write lock at the start of an .immediate transaction, and at the first write of a plain one', () => {
    const other = driver.open(path, { busyTimeoutMs: 0 });
    const otherWrites = () => sqliteErrorCode(thrownBy(() => other.exec('INSERT INTO visits (minutes) VALUES (1)'))) ?? 'written';
    try {
      const seen: string[] = [];
      db.transaction(() => {
        count();
        seen.push(otherWrites());
      })();
      db.transaction(() => {
        count();
        seen.push(otherWrites());
      }).immediate();
      assert.deepEqual(seen, ['written', 'SQLITE_BUSY']);
    } finally {
      other.close();
    }
  });

  it('may be closed twice, and says whether it is open', () => {
    assert.equal(db.open, true);
    db.close();
    db.close();
    assert.equal(db.open, false);
  });
});

describe('the node:sqlite driver on a Node without node:sqlite', { skip: hasNodeSqlite && 'this Node has node:sqlite' }, () => {
  it('is chosen at no cost, and refuses its first connection saying which Node it needs', () => {
    const chosen = nodeSqliteDriver();
    assert.equal(chosen.name, 'node:sqlite');
    assert.throws(() => chosen.open(':memory:'), { message: `node:sqlite needs Node 22.13 or newer; this is Node ${process.version}` });
  });
});

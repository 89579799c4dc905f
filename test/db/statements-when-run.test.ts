// When a module's statements are prepared (openDatabase's `statements`, src/db/statements-when-run.ts):
// a desk command's connection prepares each when it first runs, the server's all of a module's at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase, preparedFor } from '../../src/db/open-database.js';
import { useDataDirs } from '../helpers/fixtures.js';

/** A module's statements as src/db declares them: one that reads, one that writes, one of a table no schema has. */
const statements = preparedFor((db) => ({
  count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM doctors_note'),
  add: db.prepare<[string]>('INSERT INTO doctors_note (text) VALUES (?)'),
  texts: db.prepare<[], { text: string }>('SELECT text FROM doctors_note ORDER BY rowid'),
  asArrays: db.prepareArrays<[]>('SELECT rowid, text FROM doctors_note ORDER BY rowid'),
  missing: db.prepare('SELECT * FROM no_such_table'),
}));

describe("a module's prepared statements", () => {
  const dataDir = useDataDirs();

  it('are prepared when each first runs on a connection of a command: one that cannot be prepared fails when run, the others work', () => {
    const db = openDatabase(dataDir());
    try {
      db.exec('CREATE TABLE doctors_note (text TEXT NOT NULL)');
      const declared = statements(db);
      assert.equal(declared.add.run('first').changes, 1);
      declared.add.run('second');
      assert.equal(declared.count.get()?.n, 2);
      assert.deepEqual(
        declared.texts.all().map((row) => row.text),
        ['first', 'second'],
      );
      assert.deepEqual(
        [...declared.texts.iterate()].map((row) => row.text),
        ['first', 'second'],
      );
      assert.deepEqual(declared.asArrays.all(), [
        [1, 'first'],
        [2, 'second'],
      ]);
      assert.throws(() => declared.missing.get(), /no such table: no_such_table/);
      // The same statements on every later use, the one that failed still failing as it did.
      assert.equal(statements(db), declared);
      assert.throws(() => declared.missing.get(), /no such table: no_such_table/);
    } finally {
      db.close();
    }
  });

  it("are prepared all at once on the server's connection, which opens them ahead", () => {
    const dir = dataDir();
    const made = openDatabase(dir);
    made.exec('CREATE TABLE doctors_note (text TEXT NOT NULL)');
    made.close();
    const db = openDatabase(dir, { statements: 'ahead' });
    try {
      assert.throws(() => statements(db), /no such table: no_such_table/);
    } finally {
      db.close();
    }
  });
});

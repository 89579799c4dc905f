import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DATABASE_FILE, openDatabase, type Db } from '../../src/db/open-database.js';
import { sqliteDriver } from '../../src/db/sqlite-driver.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { makeDataDir } from '../helpers/test-server.js';

/**
 * Group commit on the server's connection (src/db/commit-groups.ts), over a real database file:
 * what another connection sees, and what each caller of afterCommit is told.
 */
describe('a connection that groups commits', () => {
  let dataDir: string;
  let db: Db;
  /** Another connection to the same file, as a CLI command or a second process would have. */
  let other: Db;

  before(() => {
    dataDir = makeDataDir();
    db = openDatabase(dataDir, { busyWait: 'fail', commits: 'grouped' });
    db.exec(`
      CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER poison BEFORE INSERT ON notes WHEN NEW.text = 'poison' BEGIN SELECT RAISE(ROLLBACK, 'poisoned'); END;
    `);
    other = sqliteDriver().open(join(dataDir, DATABASE_FILE));
  });
  after(() => {
    other.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const addNote = (text: string) =>
    db.afterCommit(() => db.transaction(() => db.prepare('INSERT INTO notes (text) VALUES (?)').run(text)).immediate());
  const notesSeenByOther = () => (other.prepare('SELECT text FROM notes ORDER BY id').all() as { text: string }[]).map((r) => r.text);
  const clearNotes = () => db.afterCommit(() => db.transaction(() => db.exec('DELETE FROM notes')).immediate());
  /** Frames in the WAL; a checkpoint first empties it (nothing else reads the file here). */
  const walFrames = () => (other.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;

  it('answers the writes of one turn of the event loop only once they are committed, together', async () => {
    const answers = ['one', 'two', 'three'].map(addNote);
    assert.ok(
      answers.every((answer) => answer instanceof Promise),
      'no write is answered before its commit',
    );
    assert.deepEqual(notesSeenByOther(), [], 'nothing is committed during the turn');
    await Promise.all(answers);
    assert.deepEqual(notesSeenByOther(), ['one', 'two', 'three']);
    await clearNotes();
  });

  it('writes the pages of one commit for the whole group, not one commit each', async () => {
    other.pragma('wal_checkpoint(TRUNCATE)');
    const grouped = Array.from({ length: 20 }, (_, i) => addNote(`grouped ${i}`));
    await Promise.all(grouped.map((answer) => Promise.resolve(answer)));
    const framesGrouped = walFrames();
    other.pragma('wal_checkpoint(TRUNCATE)');
    for (let i = 0; i < 20; i++) await addNote(`alone ${i}`);
    const framesAlone = walFrames();
    // Each lone commit rewrites the table's last page (and the schema's change counter page).
    assert.ok(framesGrouped * 5 <= framesAlone, `grouped: ${framesGrouped} frames, one commit each: ${framesAlone}`);
    await clearNotes();
  });

  it('undoes only the writes of a member that fails, and tells it so after the commit', async () => {
    const kept = addNote('kept');
    const refused = db.afterCommit(() =>
      db
        .transaction(() => {
          db.prepare('INSERT INTO notes (text) VALUES (?)').run('refused');
          throw new RangeError('the rule said no');
        })
        .immediate(),
    );
    await kept;
    await assert.rejects(Promise.resolve(refused), RangeError);
    assert.deepEqual(notesSeenByOther(), ['kept']);
    await clearNotes();
  });

  it('holds back a read of the group’s uncommitted rows until they are committed', async () => {
    const written = addNote('read back');
    const read = db.afterCommit(() => db.prepare('SELECT count(*) AS n FROM notes').get() as { n: number });
    assert.ok(read instanceof Promise);
    assert.deepEqual(notesSeenByOther(), []);
    assert.deepEqual(await read, { n: 1 });
    assert.deepEqual(notesSeenByOther(), ['read back']);
    await written;
    await clearNotes();
  });

  it('answers at once what runs while no group is open', () => {
    assert.deepEqual(
      db.afterCommit(() => db.prepare('SELECT count(*) AS n FROM notes').get()),
      { n: 0 },
    );
    assert.throws(() => db.afterCommit(() => db.prepare('SELECT * FROM no_such_table').get()), /no such table/);
  });

  it('fails every member when the COMMIT fails, stores none of them, and commits the next group', async () => {
    // A deferred foreign key is checked at COMMIT: a real COMMIT failure, as a full disk makes one.
    const innocent = addNote('innocent');
    const orphan = db.afterCommit(() =>
      db.transaction(() => db.prepare('INSERT INTO children (id, parent_id) VALUES (1, 42)').run()).immediate(),
    );
    const foreignKeyFailure = (error: unknown) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY';
    await assert.rejects(Promise.resolve(innocent), foreignKeyFailure);
    await assert.rejects(Promise.resolve(orphan), foreignKeyFailure);
    assert.deepEqual(notesSeenByOther(), []);
    assert.equal((other.prepare('SELECT count(*) AS n FROM children').get() as { n: number }).n, 0);
    assert.equal(db.inTransaction, false);
    await addNote('after');
    assert.deepEqual(notesSeenByOther(), ['after']);
    await clearNotes();
  });

  it('fails the members of a group SQLite rolled back mid-way, and commits the next group of the same turn', async () => {
    // RAISE(ROLLBACK) ends the whole transaction, as SQLITE_FULL or an I/O error in a statement can.
    const lost = addNote('lost with the group');
    const poisoned = addNote('poison');
    const next = addNote('in the next group');
    await assert.rejects(Promise.resolve(lost), /poisoned/);
    await assert.rejects(Promise.resolve(poisoned), /poisoned/);
    await next;
    assert.deepEqual(notesSeenByOther(), ['in the next group']);
    await clearNotes();
  });

  it('commits a group still open when the connection is closed', async () => {
    const path = makeDataDir();
    const closing = openDatabase(path, { commits: 'grouped' });
    closing.exec('CREATE TABLE t (x INTEGER)');
    const answer = closing.afterCommit(() => closing.transaction(() => closing.prepare('INSERT INTO t VALUES (1)').run()).immediate());
    closing.close();
    await answer;
    const reopened = openDatabase(path);
    assert.equal((reopened.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 1);
    reopened.close();
    rmSync(path, { recursive: true, force: true });
  });
});

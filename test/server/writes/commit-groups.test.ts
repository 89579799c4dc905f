import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Db } from '../../../src/db/open-database.js';
import { DATABASE_FILE } from '../../../src/db/data-directory.js';
import { sqliteDriver } from '../../../src/db/drivers/sqlite-driver.js';
import { sqliteErrorCode } from '../../../src/db/sqlite-result-codes.js';
import { CommitGroups } from '../../../src/server/writes/commit-groups.js';
import { makeDataDir } from '../../helpers/fixtures.js';

/**
 * The server's commit groups (src/server/writes/commit-groups.ts), over a real database file: what
 * another connection sees, and what each request's work is told.
 */
describe("the server's commit groups", () => {
  let dataDir: string;
  let db: Db;
  let commits: CommitGroups;
  /** Another connection to the same file, as a CLI command or a second process would have. */
  let other: Db;

  before(() => {
    dataDir = makeDataDir();
    db = openDatabase(dataDir, { busyWait: 'fail' });
    commits = new CommitGroups(db);
    db.exec(`
      CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER poison BEFORE INSERT ON notes WHEN NEW.text = 'poison' BEGIN SELECT RAISE(ROLLBACK, 'poisoned'); END;
    `);
    other = sqliteDriver().open(join(dataDir, DATABASE_FILE));
    // Refused at once rather than after a wait, so a test can see that the lock is held.
    other.pragma('busy_timeout = 0');
  });
  after(() => {
    other.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const addNote = (text: string) => commits.run('write', () => db.prepare('INSERT INTO notes (text) VALUES (?)').run(text));
  const notesSeenByOther = () => (other.prepare('SELECT text FROM notes ORDER BY id').all() as { text: string }[]).map((r) => r.text);
  const clearNotes = () => commits.run('write', () => db.exec('DELETE FROM notes'));
  /** Frames in the WAL; a checkpoint first empties it (nothing else reads the file here). */
  const walFrames = () => (other.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;

  it('answers the writes of one turn of the event loop only once they are committed, together', async () => {
    const answers = ['one', 'two', 'three'].map(addNote);
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

  it('undoes only the writes of a member that fails, keeps the others, and tells it so after the commit', async () => {
    const before = addNote('before');
    const refused = commits.run('read-then-write', () => {
      db.prepare('INSERT INTO notes (text) VALUES (?)').run('refused');
      throw new RangeError('the rule said no');
    });
    const after = addNote('after');
    let refusedSettled = false;
    void refused.catch(() => (refusedSettled = true));
    await Promise.resolve();
    assert.equal(refusedSettled, false, 'a refusal is not answered before the commit of its group');
    await Promise.all([before, after]);
    await assert.rejects(refused, RangeError);
    assert.deepEqual(notesSeenByOther(), ['before', 'after']);
    await clearNotes();
  });

  it('runs a read-then-write holding the write lock: another connection cannot write between its read and its commit', async () => {
    const written = commits.run('read-then-write', () => db.prepare('SELECT count(*) AS n FROM notes').get());
    const busy = (error: unknown) => sqliteErrorCode(error) === 'SQLITE_BUSY';
    assert.throws(() => other.prepare('INSERT INTO notes (text) VALUES (?)').run('between'), busy);
    await written;
    other.prepare('INSERT INTO notes (text) VALUES (?)').run('after the commit');
    assert.deepEqual(notesSeenByOther(), ['after the commit']);
    await clearNotes();
  });

  it('holds back a read of the group’s uncommitted rows until they are committed', async () => {
    const written = addNote('read back');
    const read = commits.run('read', () => db.prepare('SELECT count(*) AS n FROM notes').get() as { n: number });
    assert.deepEqual(notesSeenByOther(), []);
    assert.deepEqual(await read, { n: 1 });
    assert.deepEqual(notesSeenByOther(), ['read back']);
    await written;
    await clearNotes();
  });

  it('answers a read while no group is open without opening one', async () => {
    assert.deepEqual(await commits.run('read', () => db.prepare('SELECT count(*) AS n FROM notes').get()), { n: 0 });
    assert.equal(db.inTransaction, false);
    await assert.rejects(
      commits.run('read', () => db.prepare('SELECT * FROM no_such_table').get()),
      /no such table/,
    );
  });

  it('waits out another process holding the write lock, then writes', async () => {
    other.exec('BEGIN IMMEDIATE');
    const waiting = addNote('after the other');
    setTimeout(() => other.exec('COMMIT'), 50);
    await waiting;
    assert.deepEqual(notesSeenByOther(), ['after the other']);
    await clearNotes();
  });

  it('gives up with SQLITE_BUSY once the wait is over', async () => {
    const impatient = new CommitGroups(db, 30);
    other.exec('BEGIN IMMEDIATE');
    try {
      await assert.rejects(
        impatient.run('write', () => db.prepare('INSERT INTO notes (text) VALUES (?)').run('never')),
        (error) => sqliteErrorCode(error) === 'SQLITE_BUSY',
      );
    } finally {
      other.exec('ROLLBACK');
    }
    assert.deepEqual(notesSeenByOther(), []);
  });

  it('fails every member when the COMMIT fails, stores none of them, and commits the next group', async () => {
    // A deferred foreign key is checked at COMMIT: a real COMMIT failure, as a full disk makes one.
    const innocent = addNote('innocent');
    const orphan = commits.run('write', () => db.prepare('INSERT INTO children (id, parent_id) VALUES (1, 42)').run());
    const foreignKeyFailure = (error: unknown) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY';
    await assert.rejects(innocent, foreignKeyFailure);
    await assert.rejects(orphan, foreignKeyFailure);
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
    await assert.rejects(lost, /poisoned/);
    await assert.rejects(poisoned, /poisoned/);
    await next;
    assert.deepEqual(notesSeenByOther(), ['in the next group']);
    await clearNotes();
  });

  it('commits a group still open when flushed, as the server does before it closes its connection', async () => {
    const path = makeDataDir();
    const closing = openDatabase(path);
    const closingCommits = new CommitGroups(closing);
    closing.exec('CREATE TABLE t (x INTEGER)');
    const answer = closingCommits.run('write', () => closing.prepare('INSERT INTO t VALUES (1)').run());
    closingCommits.flush();
    closing.close();
    await answer;
    const reopened = openDatabase(path);
    assert.equal((reopened.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 1);
    reopened.close();
    rmSync(path, { recursive: true, force: true });
  });
});

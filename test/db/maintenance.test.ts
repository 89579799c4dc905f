// What `clinic check`, `clinic backup`, `serve`'s start and GET /health ask of the database file
// (clinic-api-1.2.md, "Health"; decisions.md §8, `backup FILE`, `check`): SQLite's own checks as
// lists of problems, and copies that are one snapshot while others write.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sqliteDriver } from '../../src/db/drivers/sqlite-driver.js';
import {
  backupDatabase,
  backupDatabaseInSteps,
  foreignKeyViolations,
  integrityProblems,
  probeDatabase,
  quickCheckProblems,
} from '../../src/db/maintenance.js';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { createTestPatient } from '../helpers/builders.js';
import { useDataDirs, useTestDatabase } from '../helpers/fixtures.js';

/** How many patients the database file at `path` holds, read through a read-only connection of its own. */
function patientsIn(path: string): number {
  const copy = sqliteDriver().open(path, { readOnly: true });
  try {
    assert.deepEqual(integrityProblems(copy), [], 'the copy is sound');
    return (copy.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;
  } finally {
    copy.close();
  }
}

/** Stores `count` services whose length is 0, past the CHECK that refuses them (a file changed behind the program's back). */
function storeBrokenServices(db: Db, count: number): void {
  db.pragma('ignore_check_constraints = ON');
  for (let i = 0; i < count; i++) {
    db.prepare(
      `INSERT INTO services (id, name, duration_min, price_cents, color, created_at) VALUES (?, 'Broken', 0, 0, 'red', 'now')`,
    ).run(`broken-${i}`);
  }
  db.pragma('ignore_check_constraints = OFF');
}

describe('the database file (db)', () => {
  const data = useTestDatabase({ each: true });
  const newDir = useDataDirs();

  it('finds no problem in a sound database, and can read it', () => {
    createTestPatient(data.db);
    assert.deepEqual(integrityProblems(data.db), []);
    assert.deepEqual(quickCheckProblems(data.db), []);
    assert.deepEqual(foreignKeyViolations(data.db), []);
    probeDatabase(data.db);
  });

  it('reports every row that breaks a CHECK, the quick check at most as many as asked for', () => {
    storeBrokenServices(data.db, 3);
    const message = 'CHECK constraint failed in services';
    assert.deepEqual(integrityProblems(data.db), [message, message, message]);
    assert.deepEqual(quickCheckProblems(data.db, 1), [message]);
    assert.deepEqual(quickCheckProblems(data.db, 2), [message, message]);
    assert.deepEqual(quickCheckProblems(data.db, 3), [message, message, message]);
    assert.deepEqual(quickCheckProblems(data.db), [message, message, message]);
  });

  it('reports a reference to a row that is not there, by its table and the table it names', () => {
    data.db.pragma('foreign_keys = OFF');
    data.db
      .prepare(
        `INSERT INTO documents (id, patient_id, filename, content_type, size, sha256, type, created_at)
      VALUES ('d1', 'no-such-patient', 'a.pdf', 'application/pdf', 1, '', 'other', 'now')`,
      )
      .run();
    data.db.pragma('foreign_keys = ON');
    // Copied into plain objects: node:sqlite's driver hands PRAGMA rows over without Object's prototype.
    const violations = foreignKeyViolations(data.db).map((row) => ({ ...row }));
    assert.deepEqual(violations, [{ table: 'documents', rowid: 1, parent: 'patients', fkid: 0 }]);
  });

  it('copies the whole database in one step into a file that opens as a sound database', async () => {
    for (let i = 0; i < 3; i++) createTestPatient(data.db);
    const copy = join(newDir(), 'copy.db');
    await backupDatabase(data.db, copy);
    assert.equal(patientsIn(copy), 3);
  });

  it('copies a database of several MiB a MiB at a time, telling the bytes copied, as one snapshot however others write between steps', async () => {
    createTestPatient(data.db);
    data.db.exec('CREATE TABLE filler (bytes BLOB) STRICT');
    for (let i = 0; i < 3; i++) data.db.prepare('INSERT INTO filler VALUES (randomblob(1048576))').run();
    const desk = openDatabase(data.dataDir);
    const steps: [number, number][] = [];
    const copy = join(newDir(), 'copy.db');
    try {
      await backupDatabaseInSteps(data.db, copy, (copied, total) => {
        steps.push([copied, total]);
        // The desk books, pays and adds patients while the server copies.
        createTestPatient(desk);
      });
    } finally {
      desk.close();
    }
    assert.ok(steps.length >= 3, `${steps.length} steps for over 3 MiB`);
    const pageSize = Number(data.db.pragma('page_size', { simple: true }));
    const [, total] = steps[0]!;
    const step = 256 * pageSize;
    assert.ok(total > 3 * step, `${total} bytes in all`);
    assert.ok(
      steps.every(([copied, all], i) => all === total && copied % pageSize === 0 && copied - (steps[i - 1]?.[0] ?? 0) <= step),
      `steps of 1 MiB at most, in whole pages: ${JSON.stringify(steps)}`,
    );
    assert.ok(total - steps.at(-1)![0] <= step, 'told of every step but the last');
    assert.equal(patientsIn(copy), 1, 'none of the patients added between steps');
    assert.equal(data.db.inTransaction, false, 'the snapshot ends with the copy');
  });

  it('throws what SQLite throws when the file cannot be read as a database', () => {
    const path = join(newDir(), 'clinic.db');
    writeFileSync(path, 'a file that is no database, written over the real one\n'.repeat(100));
    const db = sqliteDriver().open(path);
    try {
      assert.throws(
        () => probeDatabase(db),
        (error) => sqliteErrorCode(error) === 'SQLITE_NOTADB',
      );
    } finally {
      db.close();
    }
  });
});

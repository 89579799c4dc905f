// Opening and copying a database through a driver: the options and the online backup of better-sqlite3.ts (connection-types.ts).
// Run on the driver CLINIC_SQLITE_DRIVER names: better-sqlite3 in `npm test`, node:sqlite in `npm run test:node-sqlite`.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { betterSqlite3Driver } from '../../../src/db/drivers/better-sqlite3.js';
import { sqliteDriver, type Db } from '../../../src/db/drivers/sqlite-driver.js';
import { sqliteErrorCode } from '../../../src/db/sqlite-result-codes.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';

const driver = sqliteDriver();

/** A database of 40 rows of 3,000 random bytes (about 42 pages of 4 KiB) at `path`, left open. */
function fillDatabase(path: string): Db {
  const db = driver.open(path);
  db.exec('CREATE TABLE letters (body BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO letters VALUES (randomblob(3000))');
  db.transaction(() => {
    for (let row = 0; row < 40; row++) insert.run();
  })();
  return db;
}

const digestOf = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe(`opening and copying a database with ${driver.name}`, () => {
  const newDataDir = useDataDirs();

  it('copies the whole database in one step unless asked for steps, and then tells the pages copied of all after each step but the last', async () => {
    const dir = newDataDir();
    const db = fillDatabase(join(dir, 'clinic.db'));
    const pages = Number(db.pragma('page_count', { simple: true }));
    const oneStep: [number, number][] = [];
    const inSteps: [number, number][] = [];
    try {
      await db.backup(join(dir, 'one-step.db'), { onStep: (copied, total) => oneStep.push([copied, total]) });
      await db.backup(join(dir, 'in-steps.db'), { pagesPerStep: 10, onStep: (copied, total) => inSteps.push([copied, total]) });
    } finally {
      db.close();
    }
    assert.ok(pages > 40, `${pages} pages to copy`);
    // One step: nothing copied is ever reported part-way.
    assert.deepEqual(
      oneStep.filter(([copied]) => copied > 0 && copied < pages),
      [],
    );
    const full = Math.floor(pages / 10);
    assert.deepEqual(
      inSteps.filter(([copied]) => copied > 0),
      Array.from({ length: full }, (_, step) => [(step + 1) * 10, pages]),
    );
    for (const copy of ['one-step.db', 'in-steps.db']) {
      const copied = driver.open(join(dir, copy), { readOnly: true });
      try {
        assert.deepEqual(copied.prepare('SELECT count(*) AS n FROM letters').get(), { n: 40 }, copy);
        assert.equal(copied.pragma('integrity_check', { simple: true }), 'ok', copy);
      } finally {
        copied.close();
      }
    }
  });

  it('opens an existing file only when asked to read it, and never writes to it', () => {
    const dir = newDataDir();
    fillDatabase(join(dir, 'clinic.db')).close();
    const before = digestOf(join(dir, 'clinic.db'));
    const missing = thrownBy(() => driver.open(join(dir, 'missing.db'), { readOnly: true }));
    assert.equal(sqliteErrorCode(missing), 'SQLITE_CANTOPEN');
    assert.equal(existsSync(join(dir, 'missing.db')), false, 'no file is made for a read');
    const reader = driver.open(join(dir, 'clinic.db'), { readOnly: true });
    try {
      assert.deepEqual(reader.prepare('SELECT count(*) AS n FROM letters').get(), { n: 40 });
      assert.equal(sqliteErrorCode(thrownBy(() => reader.exec('DELETE FROM letters'))), 'SQLITE_READONLY');
    } finally {
      reader.close();
    }
    assert.equal(digestOf(join(dir, 'clinic.db')), before);
  });

  it("waits for another connection's write lock as long as it is told, and not at all when told 0", () => {
    const path = join(newDataDir(), 'clinic.db');
    const holder = fillDatabase(path);
    holder.exec('BEGIN IMMEDIATE');
    const waited = (busyTimeoutMs: number) => {
      const waiting = driver.open(path, { busyTimeoutMs });
      const started = performance.now();
      try {
        return [sqliteErrorCode(thrownBy(() => waiting.exec('BEGIN IMMEDIATE'))), performance.now() - started] as const;
      } finally {
        waiting.close();
      }
    };
    try {
      // The instance lock relies on 0 (src/db/instance-lock.ts): a second `serve` is refused at once.
      const [atOnce, atOnceMs] = waited(0);
      const [afterWait, afterWaitMs] = waited(200);
      assert.deepEqual([atOnce, afterWait], ['SQLITE_BUSY', 'SQLITE_BUSY']);
      // At once, however busy the machine: far from the 5 s better-sqlite3 waits when told nothing.
      assert.ok(atOnceMs < 1000, `told 0, it waited ${Math.round(atOnceMs)} ms`);
      assert.ok(afterWaitMs >= 150 && afterWaitMs < 2500, `told 200 ms, it waited ${Math.round(afterWaitMs)} ms`);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
});

describe("better-sqlite3's addon", () => {
  const newDataDir = useDataDirs();

  it('is loaded by the first connection, not when the driver is chosen: an addon that is not there fails there', () => {
    const chosen = betterSqlite3Driver(join(newDataDir(), 'no-such-addon.node'));
    assert.equal(chosen.name, 'better-sqlite3');
    assert.throws(() => chosen.open(':memory:'), /no-such-addon\.node|Cannot find module|ERR_DLOPEN_FAILED/);
  });

  it(
    'may be given by its path, as the single executable gives its own',
    { skip: driver.name !== 'better-sqlite3' && "node_modules holds an addon for the machine's Node, not this one" },
    () => {
      const addon = join(
        createRequire(import.meta.url).resolve('better-sqlite3/package.json'),
        '..',
        'build',
        'Release',
        'better_sqlite3.node',
      );
      const db = betterSqlite3Driver(addon).open(':memory:');
      try {
        assert.deepEqual(db.prepare('SELECT 6 * 7 AS answer').get(), { answer: 42 });
      } finally {
        db.close();
      }
    },
  );
});

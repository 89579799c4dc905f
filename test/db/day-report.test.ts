import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { explainPaymentsBetween } from '../../src/db/day-report.js';
import { openDatabase } from '../../src/db/open-database.js';
import { makeDataDir } from '../helpers/fixtures.js';

/** `clinic report day` reads one clinic day of payments from an index, in a new database and an upgraded one. */
describe('the plan of the day report', () => {
  let dataDir: string;
  before(() => {
    dataDir = makeDataDir();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The SQL of payments_by_created_at in the database of `dir`, and the plan of one day's payments. */
  const indexOf = (dir: string) => {
    const db = openDatabase(join(dataDir, dir));
    try {
      const index = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'payments_by_created_at'").get() as { sql: string } | undefined;
      return { sql: index?.sql, plan: explainPaymentsBetween(db).join('\n') };
    } finally {
      db.close();
    }
  };

  it('reads one day of payments from the created_at index', () => {
    assert.match(indexOf('fresh').plan, /SEARCH p USING INDEX payments_by_created_at \(created_at>\? AND created_at<\?\)/);
  });

  it('gives a database upgraded from 1.0.0 the same payments_by_created_at index as a new one', () => {
    cpSync(fileURLToPath(new URL('../fixtures/release-1.0.0', import.meta.url)), join(dataDir, 'upgraded'), { recursive: true });
    const fresh = indexOf('fresh');
    assert.equal(fresh.sql, 'CREATE INDEX payments_by_created_at ON payments (created_at)');
    assert.deepEqual(indexOf('upgraded'), fresh);
  });
});

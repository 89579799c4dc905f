import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { ChangeWatch } from '../../../src/server/writes/change-watch.js';
import { buildPatient } from '../../helpers/builders.js';
import { makeDataDir } from '../../helpers/fixtures.js';

// The server's watch of the change feed (src/server/writes/change-watch.ts), on a real database
// with a second connection as the other process (a desk command beside the server).
describe("the change feed's watch", () => {
  const dataDir = makeDataDir();
  const served = openDatabase(dataDir, { initialiseEmpty: true });
  const other = openDatabase(dataDir);
  after(() => {
    served.close();
    other.close();
  });

  it("wakes a waiter when a reader of the last seq (the webhook worker's pass) sees another process's commit first", async () => {
    // Polling far apart: only the reader can have seen the commit when the waiter ends.
    const watch = new ChangeWatch(served, 60_000);
    const mark = watch.lastSeq();
    const started = Date.now();
    const waited = watch.after(mark, 5_000).then(() => Date.now() - started);
    createPatient(other, buildPatient({ last_name: 'Elsewhere' }));
    assert.equal(watch.lastSeq(), mark + 1);
    const tookMs = await waited;
    assert.ok(tookMs < 1_000, `the waiter ended after ${tookMs} ms`);
    watch.close();
  });
});

// The change feed's table (clinic-api-1.2.md, "Change feed"; issue 39's lost ranges; 1.3.0 "Erasure"):
// how events are numbered, read by type, and what `clinic check` finds wrong with them.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  changeEventsAfter,
  changeFeedFindings,
  countChangeEventsAfter,
  highestChangeSeq,
  insertChangeEvent,
  insertLostRange,
  lastChangeSeq,
  lostRangeHolding,
  readHighestChangeSeq,
} from '../../src/db/change-events.js';
import { DATABASE_FILE } from '../../src/db/data-directory.js';
import { sqliteDriver } from '../../src/db/drivers/sqlite-driver.js';
import { markPatientErased } from '../../src/db/erasure.js';
import type { Db } from '../../src/db/open-database.js';
import { createTestPatient } from '../helpers/builders.js';
import { useDataDirs, useTestDatabase } from '../helpers/fixtures.js';

const AT = '2026-11-30T08:00:00.000Z';

/** Appends one event of `type`, about no patient, with `{ n }` as its data. */
function appendEvent(db: Db, type: string, n: number): void {
  insertChangeEvent(db, { type, occurred_at: AT, patient_id: null, data: JSON.stringify({ n }) });
}

/** Records positions `first`..`last` as a restore leaves them behind. */
function loseRange(db: Db, first: number, last: number): void {
  insertLostRange(db, { first_seq: first, last_seq: last, restored_at: AT, backup_created_at: AT, bound: 'margin' });
}

describe('the change feed (db)', () => {
  const data = useTestDatabase({ each: true });
  const newDir = useDataDirs();

  it('numbers events 1, 2, 3 in the order appended, and reads them back after a seq, a page at a time', () => {
    assert.equal(lastChangeSeq(data.db), 0);
    assert.equal(highestChangeSeq(data.db), 0);
    for (let n = 1; n <= 3; n++) appendEvent(data.db, 'patient.created', n);
    assert.equal(lastChangeSeq(data.db), 3);
    assert.deepEqual(
      changeEventsAfter(data.db, 0, 3, null).map((event) => [event.seq, event.data]),
      [
        [1, '{"n":1}'],
        [2, '{"n":2}'],
        [3, '{"n":3}'],
      ],
    );
    assert.deepEqual(
      changeEventsAfter(data.db, 1, 1, null).map((event) => event.seq),
      [2],
    );
    assert.deepEqual(changeEventsAfter(data.db, 3, 100, null), []);
    assert.equal(countChangeEventsAfter(data.db, 1, null), 2);
  });

  it("reads only the types asked for, in seq order across the types, cut at the page's limit", () => {
    const types = ['patient.created', 'invoice.created', 'patient.created', 'payment.created', 'invoice.created', 'patient.created'];
    types.forEach((type, i) => appendEvent(data.db, type, i + 1));
    const wanted = ['patient.created', 'invoice.created'];
    assert.deepEqual(
      changeEventsAfter(data.db, 0, 4, wanted).map((event) => [event.seq, event.type]),
      [
        [1, 'patient.created'],
        [2, 'invoice.created'],
        [3, 'patient.created'],
        [5, 'invoice.created'],
      ],
    );
    assert.deepEqual(
      changeEventsAfter(data.db, 3, 100, wanted).map((event) => event.seq),
      [5, 6],
    );
    assert.equal(countChangeEventsAfter(data.db, 1, wanted), 4);
    assert.deepEqual(changeEventsAfter(data.db, 0, 10, ['refund.created']), []);
  });

  it('numbers the next event after a range a restore left behind, and finds the range by any seq inside it, its ends included', () => {
    for (let n = 1; n <= 3; n++) appendEvent(data.db, 'patient.created', n);
    loseRange(data.db, 4, 8);
    assert.equal(lastChangeSeq(data.db), 3);
    assert.equal(highestChangeSeq(data.db), 8);
    appendEvent(data.db, 'patient.created', 4);
    assert.equal(lastChangeSeq(data.db), 9);

    assert.equal(lostRangeHolding(data.db, 3), undefined);
    for (const seq of [4, 6, 8]) {
      const range = lostRangeHolding(data.db, seq);
      assert.deepEqual([range?.first_seq, range?.last_seq, range?.seq_before], [4, 8, 3], `seq ${seq}`);
    }
    assert.equal(lostRangeHolding(data.db, 9), undefined);
    // A consumer of the feed sees no gap it could wait on: the page after 3 goes on at 9.
    assert.deepEqual(
      changeEventsAfter(data.db, 3, 10, null).map((event) => event.seq),
      [9],
    );
  });

  it('stores {} as the data of a new event about an erased patient, and the data of one about another patient as given', () => {
    const erased = createTestPatient(data.db, { last_name: 'Gone' });
    const kept = createTestPatient(data.db, { last_name: 'Here' });
    markPatientErased(data.db, erased.id, AT);
    insertChangeEvent(data.db, { type: 'invoice.created', occurred_at: AT, patient_id: erased.id, data: '{"invoice_number":"INV-1"}' });
    insertChangeEvent(data.db, { type: 'invoice.created', occurred_at: AT, patient_id: kept.id, data: '{"invoice_number":"INV-2"}' });
    const [gone, here] = changeEventsAfter(data.db, lastChangeSeq(data.db) - 2, 2, null);
    assert.deepEqual([gone?.patient_id, gone?.type, gone?.data], [erased.id, 'invoice.created', '{}']);
    assert.deepEqual([here?.patient_id, here?.data], [kept.id, '{"invoice_number":"INV-2"}']);
  });

  it('finds nothing wrong with a whole feed, its lost positions below the last event included, and names an event inside a lost range', () => {
    for (let n = 1; n <= 2; n++) appendEvent(data.db, 'patient.created', n);
    loseRange(data.db, 3, 5);
    appendEvent(data.db, 'patient.created', 6);
    assert.deepEqual(changeFeedFindings(data.db), []);
    // An event numbered inside a range (the numbering broken, or a restore's range recorded late).
    loseRange(data.db, 6, 7);
    assert.deepEqual(changeFeedFindings(data.db), [
      'the change feed has 2 events but its last is seq 6 (less 3 positions a restore left behind): 1 missing',
      "the change feed's event seq 6 lies in the range 6–7 a restore left behind",
    ]);
  });

  it('names a missing append-only trigger, and the events deleted without it', () => {
    for (let n = 1; n <= 3; n++) appendEvent(data.db, 'patient.created', n);
    data.db.exec('DROP TRIGGER change_events_are_append_only_on_delete');
    data.db.exec('DELETE FROM change_events WHERE seq = 2');
    assert.deepEqual(changeFeedFindings(data.db), [
      "the change feed's trigger change_events_are_append_only_on_delete is missing: its events could be changed or deleted unnoticed by SQLite",
      'the change feed has 2 events but its last is seq 3: 1 missing',
    ]);
  });

  it("reads the highest seq a database file handed out through a read-only connection of its own, past a lost range's end", () => {
    for (let n = 1; n <= 2; n++) appendEvent(data.db, 'patient.created', n);
    const path = join(data.dataDir, DATABASE_FILE);
    assert.equal(readHighestChangeSeq(path), 2);
    loseRange(data.db, 3, 40);
    assert.equal(readHighestChangeSeq(path), 40);
    // Nothing in the file changed: the connection that wrote it still numbers after the range.
    appendEvent(data.db, 'patient.created', 3);
    assert.equal(lastChangeSeq(data.db), 41);
  });

  it('reads 0 from a database older than the feed and refuses a file that is no database', () => {
    const older = join(newDir(), 'older.db');
    const db = sqliteDriver().open(older);
    db.exec('CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT)');
    db.close();
    assert.equal(readHighestChangeSeq(older), 0);
    const text = join(newDir(), 'notes.db');
    writeFileSync(text, 'these are not the pages of a database, only a note someone saved under its name\n'.repeat(20));
    assert.throws(() => readHighestChangeSeq(text), /not a database/);
  });
});

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { explainAuditList, iterateAuditEvents } from '../../src/db/audit-events.js';
import { openDatabase } from '../../src/db/open-database.js';
import { appendAuditEvents, DATA_EXPORT, DATA_IMPORT } from '../../src/domain/audit/record-audit.js';
import type { Actor } from '../../src/domain/audit/audit-event.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { makeDataDir } from '../helpers/fixtures.js';

const frontDesk: Actor = { type: 'cli', id: 'reception', name: 'reception', source: 'desk-1', requestId: null };
const otherPc: Actor = { type: 'cli', id: 'nurse', name: 'nurse', source: 'room-2', requestId: null };

describe('insertAuditEvents', () => {
  it('names the right action and person after a transaction that added them rolled back and another took their refs', () => {
    const dataDir = makeDataDir();
    const server = openDatabase(dataDir);
    const desk = openDatabase(dataDir);
    try {
      // The first connection adds an action and an actor, finds them again in the same
      // transaction, and rolls back: their refs were never committed.
      server.exec('BEGIN IMMEDIATE');
      appendAuditEvents(server, frontDesk, [DATA_EXPORT]);
      appendAuditEvents(server, frontDesk, [DATA_EXPORT]);
      server.exec('ROLLBACK');
      // Another connection commits another action and actor, which take those refs.
      desk.exec('BEGIN IMMEDIATE');
      appendAuditEvents(desk, otherPc, [DATA_IMPORT]);
      desk.exec('COMMIT');
      server.exec('BEGIN IMMEDIATE');
      appendAuditEvents(server, frontDesk, [DATA_EXPORT]);
      server.exec('COMMIT');

      const events = [...iterateAuditEvents(desk)].map((event) => `${event.action} by ${event.actor_name} at ${event.source}`);
      assert.deepEqual(events, ['data.import by nurse at room-2', 'data.export by reception at desk-1']);
    } finally {
      server.close();
      desk.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * Every filter of GET /audit-events (and `clinic audit list`) reads a range of an index, never the
 * whole trail and never with a sort (issue 39, L1: 1.2.0 scanned the trail for `action` and sorted
 * a window), proved on SQLite's own plan; docs/benchmarks.md has the timings at 2,000,000 events.
 */
describe('the plans of the audit trail’s lists', () => {
  const data = useTestDatabase();

  const cases = [
    {
      title: 'no filter, or only after',
      filter: { patientId: false, actions: false, window: false },
      range: /SEARCH audit_trail USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/,
    },
    {
      title: 'a window of time (from, to)',
      filter: { patientId: false, actions: false, window: true },
      range: /SEARCH audit_trail USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/,
    },
    {
      title: 'patient_id',
      filter: { patientId: true, actions: false, window: false },
      range: /SEARCH audit_trail USING INDEX audit_trail_by_patient \(patient_ref=\? AND seq>\? AND seq<\?\)/,
    },
    {
      title: 'patient_id with actions and a window',
      filter: { patientId: true, actions: true, window: true },
      range: /SEARCH audit_trail USING INDEX audit_trail_by_patient \(patient_ref=\? AND seq>\? AND seq<\?\)/,
    },
    {
      title: 'action',
      filter: { patientId: false, actions: true, window: false },
      range: /SEARCH audit_trail USING COVERING INDEX audit_trail_by_action \(action_code=\? AND seq>\? AND seq<\?\)/,
    },
    {
      title: 'action with a window',
      filter: { patientId: false, actions: true, window: true },
      range: /SEARCH audit_trail USING COVERING INDEX audit_trail_by_action \(action_code=\? AND seq>\? AND seq<\?\)/,
    },
  ];
  for (const { title, filter, range } of cases) {
    it(`${title}: a range of one index in seq order, the page's events by seq, no scan and no sort`, () => {
      const plan = explainAuditList(data.db, filter).join('\n');
      assert.match(plan, range);
      // The page's events, and each one's link to the event before, by the primary key.
      assert.match(plan, /SEARCH t USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      assert.match(plan, /SEARCH h USING INTEGER PRIMARY KEY \(rowid<\?\)/);
      for (const joined of ['a', 'p', 'c', 'r'])
        assert.match(plan, new RegExp(`SEARCH ${joined} USING INTEGER PRIMARY KEY \\(rowid=\\?\\)`));
      if (filter.window) assert.match(plan, /SEARCH audit_trail USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      if (filter.patientId)
        assert.match(plan, /SEARCH audit_patients USING COVERING INDEX sqlite_autoindex_audit_patients_1 \(patient_id=\?\)/);
      if (filter.actions) assert.match(plan, /SEARCH audit_actions USING COVERING INDEX sqlite_autoindex_audit_actions_1 \(action=\?\)/);
      assert.doesNotMatch(plan, /SCAN (audit_trail|t|h|a|p|c|r|audit_patients|audit_actions)\b/);
      assert.doesNotMatch(plan, /TEMP B-TREE/);
    });
  }
});

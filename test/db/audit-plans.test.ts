import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainAuditList } from '../../src/db/audit-events.js';
import { useTestDatabase } from '../helpers/fixtures.js';

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

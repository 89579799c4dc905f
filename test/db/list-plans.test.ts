import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainAppointmentList } from '../../src/db/appointments.js';
import { explainPatientDocumentList } from '../../src/db/documents.js';
import { explainOpenBalancesOfPatients, explainPatientsOwingInSeveralCurrencies } from '../../src/db/invoices.js';
import { explainPatientSearch, explainPatientWalk } from '../../src/db/patient-search.js';
import { explainDueReminder, explainReminderList } from '../../src/db/reminders.js';
import { wordLookup } from '../../src/fields/search-terms.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/**
 * Every list of interface 1.1.0 is read from an index (the quality bar: "an index for every list
 * query"), proved on SQLite's own plan rather than on timings.
 */
describe('the plans of the 1.1.0 lists', () => {
  const data = useTestDatabase();

  it('lists patients by name from the name index, in order, without a sort', () => {
    const plan = explainPatientSearch(data.db, []).join('\n');
    assert.match(plan, /SEARCH p USING (COVERING )?INDEX patients_by_name/);
    assert.doesNotMatch(plan, /TEMP B-TREE/);
  });

  for (const words of [['mül'], ['mül', 'jürgen'], ['P-42', '1961-07-23', 'jm@example.at', '0664 1234']]) {
    it(`searches "${words.join(' ')}" through the term index, never scanning patients or terms`, () => {
      const plan = explainPatientSearch(data.db, words.map(wordLookup)).join('\n');
      assert.match(plan, /SEARCH f USING PRIMARY KEY \(term>\? AND term<\?\)/);
      if (words.length > 1) assert.match(plan, /USING (COVERING )?INDEX patient_search_terms_by_patient \(patient_seq=\?/);
      assert.doesNotMatch(plan, /SCAN (p|patients|patient_search_terms|f|t)\b(?! USING)/);
    });
  }

  it("clinic check's patients owing in several currencies reads the open invoices alone, through their partial index (issue 39)", () => {
    const plan = explainPatientsOwingInSeveralCurrencies(data.db).join('\n');
    assert.match(plan, /SCAN invoices USING INDEX invoices_open_by_issued_at/);
    assert.doesNotMatch(plan, /invoices_by_patient|SCAN invoices\b(?! USING INDEX invoices_open_by_issued_at)/);
  });

  it("reads what a search page's patients owe through invoices_by_patient, patient by patient, in one statement (issue 43)", () => {
    const plan = explainOpenBalancesOfPatients(data.db).join('\n');
    assert.match(plan, /SEARCH invoices USING INDEX invoices_by_patient \(patient_id=\?\)/);
    assert.doesNotMatch(plan, /SCAN invoices\b/);
  });

  it('walks the name index in order for common words, checking each patient on the term index, without a sort', () => {
    const plan = explainPatientWalk(data.db, [wordLookup('m'), wordLookup('0664')]).join('\n');
    assert.match(plan, /SEARCH p USING (COVERING )?INDEX patients_by_name/);
    assert.match(plan, /USING (COVERING )?INDEX patient_search_terms_by_patient \(patient_seq=\?/);
    assert.doesNotMatch(plan, /TEMP B-TREE|SCAN (p|patients|patient_search_terms|t|d)\b(?! USING)/);
  });

  it('finds a run of phone digits by reading the narrow digits table, and only when no other word narrows first', () => {
    assert.match(explainPatientSearch(data.db, [wordLookup('1234567')]).join('\n'), /SCAN d\b/);
    const withName = explainPatientSearch(data.db, [wordLookup('huber'), wordLookup('1234567')]).join('\n');
    assert.doesNotMatch(withName, /SCAN d\b/);
    assert.match(withName, /SEARCH d USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  });

  for (const [filter, index] of [
    [{ resourceId: null, patientId: null }, 'appointments_by_start'],
    [{ resourceId: 'doctor', patientId: null }, 'appointments_by_doctor'],
    [{ resourceId: null, patientId: 'patient' }, 'appointments_by_patient'],
  ] as const) {
    it(`reads a day's appointments${filter.resourceId ? ' of one doctor' : filter.patientId ? ' of one patient' : ''} from ${index}, a range of start_at`, () => {
      const plan = explainAppointmentList(data.db, {
        from: '2026-12-01T00:00:00.000Z',
        to: '2026-12-02T00:00:00.000Z',
        statuses: null,
        ...filter,
      }).join('\n');
      assert.match(plan, new RegExp(`SEARCH a USING INDEX ${index} \\((\\w+=\\? AND )?start_at>\\? AND start_at<\\?\\)`));
      assert.doesNotMatch(plan, /TEMP B-TREE/);
    });
  }

  it("reads a patient's documents newest first from documents_by_patient, without a sort", () => {
    const plan = explainPatientDocumentList(data.db).join('\n');
    assert.match(plan, /SEARCH documents USING INDEX documents_by_patient \(patient_id=\? AND created_at<\?\)/);
    assert.doesNotMatch(plan, /TEMP B-TREE/);
  });

  const everyReminder = { from: null, to: null, states: null, patientId: null, appointmentId: null };
  for (const [what, filter, parts] of [
    ['every reminder', everyReminder, 6],
    [
      "a day's sent and failed reminders",
      { ...everyReminder, from: '2026-12-01T00:00:00.000Z', to: '2026-12-02T00:00:00.000Z', states: '["failed","sent"]' },
      2,
    ],
  ] as const) {
    it(`lists ${what} by (due_at, id) from reminders_by_state_due, one range per state merged, sorting only ties (issue 46)`, () => {
      const plan = explainReminderList(data.db, filter).join('\n');
      const ranges = plan.match(/SEARCH r USING INDEX reminders_by_state_due \(state=\? AND due_at>\? AND due_at<\?\)/g) ?? [];
      assert.equal(ranges.length, parts, plan);
      assert.match(plan, /MERGE \(UNION ALL\)/);
      // Only the reminders due at the same instant are sorted, by id.
      assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|SCAN r\b/);
    });
  }

  it("lists an appointment's reminders through reminders_by_appointment", () => {
    const plan = explainReminderList(data.db, { ...everyReminder, appointmentId: 'appointment' }).join('\n');
    assert.match(plan, /SEARCH r USING INDEX reminders_by_appointment \(appointment_id=\?\)/);
    assert.doesNotMatch(plan, /SCAN r\b/);
  });

  it('finds the reminder due first among the scheduled ones alone, in order, sorting only ties (issue 46)', () => {
    const plan = explainDueReminder(data.db).join('\n');
    assert.match(plan, /SEARCH r USING INDEX reminders_by_state_due \(state=\? AND due_at<\?\)/);
    assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|SCAN r\b/);
  });
});

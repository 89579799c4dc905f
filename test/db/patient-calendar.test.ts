import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainUpcomingAppointments } from '../../src/db/patient-calendar.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** `clinic patient show`'s coming appointments, read from an index (the quality bar), proved on SQLite's plan. */
describe("the plan of a patient's coming appointments", () => {
  const data = useTestDatabase();

  it('reads them from appointments_by_patient, in order, without a sort', () => {
    const plan = explainUpcomingAppointments(data.db).join('\n');
    assert.match(plan, /USING INDEX appointments_by_patient \(patient_id=\? AND start_at>\?\)/);
    assert.doesNotMatch(plan, /TEMP B-TREE/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainAppointmentList } from '../../src/db/appointments.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/**
 * Every list query is read from an index (the quality bar: "an index for every list query"),
 * proved on SQLite's own plan rather than on timings.
 */
describe('the plan of the appointment list', () => {
  const data = useTestDatabase();

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
});

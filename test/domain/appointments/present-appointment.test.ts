// The Appointment as the API and `--json` show it (clinic-public-api.md §2.5; decisions.md §5; clinic-api-1.2.md and 1.3.md add its last fields).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppointmentRow, AppointmentServiceRow } from '../../../src/db/appointments.js';
import type { ServiceRow } from '../../../src/db/services.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { presentAppointment, presentStoredAppointment } from '../../../src/domain/appointments/present-appointment.js';
import { addService } from '../../../src/domain/catalog.js';
import { findAppointment } from '../../../src/db/appointments.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { APPOINTMENT_KEYS } from '../../helpers/api-shapes.js';

const AT = '2026-11-30T08:00:00.000Z';

/** A stored appointment as the database reads it: booked at the desk, confirmed by the clinic. */
function appointmentRow(overrides: Partial<AppointmentRow> = {}): AppointmentRow {
  return {
    seq: 17,
    id: '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a',
    appointment_number: 'A-000017',
    booking_source: 'cli',
    created_at: AT,
    updated_at: AT,
    start_at: '2026-12-01T08:00:00.000Z',
    end_at: '2026-12-01T08:30:00.000Z',
    patient_id: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f',
    resource_id: null,
    service_id: null,
    status: 'booked',
    clinic_confirmed_at: AT,
    patient_confirmed_at: null,
    patient_first_name: 'Ada',
    patient_last_name: 'Lovelace',
    patient_number: 'P-000042',
    patient_email: 'ada@example.org',
    patient_mobile: '+43 660 1234567',
    patient_cave: null,
    patient_classification: null,
    title: 'Check-up',
    appointment_type: null,
    color: null,
    notes: null,
    reschedule_from_start_at: null,
    reschedule_from_end_at: null,
    reschedule_at: null,
    reschedule_by_role: null,
    confirmation_reminder_sent_at: null,
    status_reason: null,
    status_changed_at: null,
    patient_declined_at: null,
    ...overrides,
  };
}

const CLEANING: AppointmentServiceRow = {
  id: 'c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f',
  name: 'Cleaning',
  color: '#33aa33',
  duration_min: 45,
};
const XRAY: AppointmentServiceRow = { id: 'd5e6f7a8-b9c0-4d1e-8f2a-3b4c5d6e7f8a', name: 'X-ray', color: '#3366cc', duration_min: 15 };
const serviceRow = (service: AppointmentServiceRow): ServiceRow => ({ ...service, price_cents: 5000, created_at: AT, retired_at: null });

describe('an appointment as the API shows it', () => {
  const data = useTestDatabase();

  it("has the specification's fields in its order, the later versions' appended", () => {
    assert.deepEqual(Object.keys(presentAppointment(appointmentRow(), [], undefined)), APPOINTMENT_KEYS);
  });

  it('names the service of service_id, else the first of its services, else none', () => {
    const both = [CLEANING, XRAY];
    const main = presentAppointment(appointmentRow({ service_id: XRAY.id }), both, serviceRow(XRAY));
    assert.deepEqual([main.service_name, main.service_color], ['X-ray', '#3366cc']);
    const first = presentAppointment(appointmentRow(), both, undefined);
    assert.deepEqual([first.service_name, first.service_color], ['Cleaning', '#33aa33']);
    const none = presentAppointment(appointmentRow(), [], undefined);
    assert.deepEqual([none.service_name, none.service_color, none.service_ids, none.services], [null, null, [], []]);
  });

  it('lists its services in their order as briefs, a service’s length as default_duration_min', () => {
    const shown = presentAppointment(appointmentRow(), [XRAY, CLEANING], undefined);
    assert.deepEqual(shown.service_ids, [XRAY.id, CLEANING.id]);
    assert.deepEqual(shown.services, [
      { id: XRAY.id, name: 'X-ray', color: '#3366cc', default_duration_min: 15 },
      { id: CLEANING.id, name: 'Cleaning', color: '#33aa33', default_duration_min: 45 },
    ]);
  });

  it('says who still owes a confirmation, from its timestamps, else from where it was booked', () => {
    const state = (overrides: Partial<AppointmentRow>) => presentAppointment(appointmentRow(overrides), [], undefined).confirmation_state;
    assert.equal(state({}), 'awaiting_patient');
    assert.equal(state({ patient_confirmed_at: AT }), 'confirmed');
    assert.equal(state({ clinic_confirmed_at: null, patient_confirmed_at: AT }), 'awaiting_clinic');
    assert.equal(state({ clinic_confirmed_at: null, booking_source: 'online' }), 'awaiting_clinic');
    assert.equal(state({ clinic_confirmed_at: null, booking_source: 'api' }), 'n_a');
    assert.equal(state({ patient_declined_at: AT, patient_confirmed_at: null }), 'declined');
  });

  it('shows a text field a row does not carry as null, never as absent', () => {
    const { title: _title, notes: _notes, status_reason: _reason, ...older } = appointmentRow();
    const shown = presentAppointment(older as AppointmentRow, [], undefined);
    assert.deepEqual([shown.title, shown.notes, shown.status_reason], [null, null, null]);
    assert.deepEqual(Object.keys(shown), APPOINTMENT_KEYS);
  });

  it('reads a stored appointment’s services and the service of its service_id from the database', () => {
    const patient = createTestPatient(data.db);
    const cleaning = addService(data.db, { name: 'Cleaning', duration_min: 45, price: 80, color: '#33aa33' });
    const xray = addService(data.db, { name: 'X-ray', duration_min: 15, price: 40, color: '#3366cc' });
    const booked = bookAppointment(
      data.db,
      {
        patient_id: patient.id,
        start_at: '2026-12-01T09:00Z',
        end_at: '2026-12-01T09:45Z',
        service_ids: [cleaning.id, xray.id],
        service_id: xray.id,
      },
      'cli',
    );
    const shown = presentStoredAppointment(data.db, findAppointment(data.db, booked.id)!);
    assert.deepEqual([shown.service_name, shown.service_ids], ['X-ray', [cleaning.id, xray.id]]);
    assert.deepEqual([shown.patient_number, shown.patient_first_name, shown.booking_source], [patient.patient_number, 'Ada', 'cli']);
    assert.deepEqual(shown, booked);
  });
});

// src/domain/changes/change-event.ts: the change feed's event ids and thin data (clinic-api-1.2.md, "Change feed").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appointmentData, changeEventId, invoiceData } from '../../../src/domain/changes/change-event.js';

// The change feed's events (clinic-api-1.2.md, "Change feed"): `evt_<seq>`, and data that is thin:
// ids and what an integration needs to decide whether to read more, never a whole record.

describe('change events', () => {
  it('names an event evt_<seq>, the id a webhook delivery sends as webhook-id', () => {
    assert.equal(changeEventId(1), 'evt_1');
    assert.equal(changeEventId(1003), 'evt_1003');
  });

  it("gives an appointment's id, number, times, status and doctor, and nothing else of it", () => {
    const appointment = {
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      appointment_number: 'A-000017',
      start_at: '2026-11-30T08:00:00.000Z',
      end_at: '2026-11-30T08:30:00.000Z',
      status: 'booked',
      resource_id: null,
      notes: 'allergic to penicillin',
      patient_id: 'p-1',
      patient_first_name: 'Ada',
      title: 'Check-up',
    };
    assert.deepEqual(appointmentData(appointment), {
      appointment_id: 'a1b2c3d4-0000-4000-8000-000000000001',
      appointment_number: 'A-000017',
      start_at: '2026-11-30T08:00:00.000Z',
      end_at: '2026-11-30T08:30:00.000Z',
      status: 'booked',
      resource_id: null,
    });
  });

  it("gives an invoice's id, number, total and status, and nothing else of it", () => {
    const invoice = {
      id: 'i-1',
      invoice_number: 'INV-2026-000002',
      total: 85.5,
      status: 'void',
      void_reason: 'wrong patient',
      patient_id: 'p-1',
    };
    assert.deepEqual(invoiceData(invoice), { invoice_id: 'i-1', invoice_number: 'INV-2026-000002', total: 85.5, status: 'void' });
  });
});

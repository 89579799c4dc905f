import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confirmationState, type ConfirmationFacts } from '../../../src/domain/appointments/confirmation-state.js';

const AT = '2026-12-01T08:00:00.000Z';

describe('confirmationState', () => {
  const scenarios: { title: string; facts: ConfirmationFacts; expected: string }[] = [
    {
      title: 'is confirmed when both the clinic and the patient confirmed',
      facts: { clinic_confirmed_at: AT, patient_confirmed_at: AT, booking_source: 'api' },
      expected: 'confirmed',
    },
    {
      title: 'awaits the patient when only the clinic confirmed',
      facts: { clinic_confirmed_at: AT, patient_confirmed_at: null, booking_source: 'cli' },
      expected: 'awaiting_patient',
    },
    {
      title: 'awaits the clinic when only the patient confirmed',
      facts: { clinic_confirmed_at: null, patient_confirmed_at: AT, booking_source: 'api' },
      expected: 'awaiting_clinic',
    },
    {
      title: 'lets the timestamps win over an online booking source',
      facts: { clinic_confirmed_at: AT, patient_confirmed_at: null, booking_source: 'online' },
      expected: 'awaiting_patient',
    },
    {
      title: 'awaits the clinic for a legacy online booking without timestamps',
      facts: { clinic_confirmed_at: null, patient_confirmed_at: null, booking_source: 'online' },
      expected: 'awaiting_clinic',
    },
    {
      title: 'awaits the clinic for a legacy portal booking without timestamps',
      facts: { clinic_confirmed_at: null, patient_confirmed_at: null, booking_source: 'portal' },
      expected: 'awaiting_clinic',
    },
    {
      title: 'is n_a for a legacy api booking without timestamps',
      facts: { clinic_confirmed_at: null, patient_confirmed_at: null, booking_source: 'api' },
      expected: 'n_a',
    },
    {
      title: 'is n_a for a legacy booking of any other source without timestamps',
      facts: { clinic_confirmed_at: null, patient_confirmed_at: null, booking_source: 'phone' },
      expected: 'n_a',
    },
  ];
  for (const { title, facts, expected } of scenarios) {
    it(title, () => assert.equal(confirmationState(facts), expected));
  }
});

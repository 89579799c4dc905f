import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confirmationState, type ConfirmationFacts } from '../../../src/domain/appointments/confirmation-state.js';

const AT = '2026-12-01T08:00:00.000Z';

/** A row's facts: its two confirmation timestamps (AT or null) and its booking source. */
function facts(clinic: string | null, patient: string | null, booking_source: string): ConfirmationFacts {
  return { clinic_confirmed_at: clinic, patient_confirmed_at: patient, booking_source };
}

describe('confirmationState', () => {
  // [test title, facts, expected state]
  const scenarios: [string, ConfirmationFacts, string][] = [
    ['is confirmed when both the clinic and the patient confirmed', facts(AT, AT, 'api'), 'confirmed'],
    ['awaits the patient when only the clinic confirmed', facts(AT, null, 'cli'), 'awaiting_patient'],
    ['awaits the clinic when only the patient confirmed', facts(null, AT, 'api'), 'awaiting_clinic'],
    ['lets the timestamps win over an online booking source', facts(AT, null, 'online'), 'awaiting_patient'],
    ['awaits the clinic for a legacy online booking without timestamps', facts(null, null, 'online'), 'awaiting_clinic'],
    ['awaits the clinic for a legacy portal booking without timestamps', facts(null, null, 'portal'), 'awaiting_clinic'],
    ['is n_a for a legacy api booking without timestamps', facts(null, null, 'api'), 'n_a'],
    ['is n_a for a legacy booking of any other source without timestamps', facts(null, null, 'phone'), 'n_a'],
  ];
  for (const [title, rowFacts, expected] of scenarios) {
    it(title, () => assert.equal(confirmationState(rowFacts), expected));
  }
});

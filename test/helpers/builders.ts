/** A valid POST /patients body; override any field. */
export function buildPatient(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org', mobile: '+43 660 1234567', ...overrides };
}

/** A string of exactly `length` characters. */
export function text(length: number, char = 'a'): string {
  return char.repeat(length);
}

/** A valid `clinic invoice create` input for `patientId` (total 100.00); override any field. */
export function buildInvoice(patientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { patient_id: patientId, total: '100.00', ...overrides };
}

/** A valid POST /invoices/{invoice_id}/payments body (10.00 in cash); override any field. */
export function buildPayment(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: '10.00', method: 'cash', ...overrides };
}

/** A valid POST /patients body; override any field. */
export function buildPatient(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org', mobile: '+43 660 1234567', ...overrides };
}

/** A string of exactly `length` characters. */
export function text(length: number, char = 'a'): string {
  return char.repeat(length);
}

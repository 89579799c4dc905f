import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allErrorCodes } from '../../../src/server/openapi/error-codes.js';

/**
 * The list of every error code the interface description's ErrorCode enum gives (decisions.md §1;
 * the error tables of clinic-api-1.1.md, 1.2.md and 1.3.md): what an integrator generating a
 * client from it can expect to be told.
 */

/** Every code the specification's error tables name, table by table. */
const SPECIFIED_CODES = {
  'decisions.md §1': [
    'UNAUTHENTICATED',
    'FORBIDDEN',
    'MODULE_DISABLED',
    'PATIENT_NOT_FOUND',
    'INVOICE_NOT_FOUND',
    'NOT_FOUND',
    'METHOD_NOT_ALLOWED',
    'PAYLOAD_TOO_LARGE',
    'DOCUMENT_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'PATIENT_CONTACT_REQUIRED',
    'DOCTOR_NOT_FOUND',
    'SERVICE_NOT_FOUND',
    'DOCUMENT_TYPE_INVALID',
    'DOCUMENT_EMPTY',
    'PAYMENT_EXCEEDS_BALANCE',
    'IDEMPOTENCY_KEY_REUSED',
    'DATABASE_BUSY',
    'INTERNAL',
  ],
  'clinic-api-1.1.md': ['APPOINTMENT_NOT_FOUND', 'DOCUMENT_NOT_FOUND'],
  'clinic-api-1.2.md': [
    'HOST_NOT_ALLOWED',
    'ORIGIN_NOT_ALLOWED',
    'PAYMENT_NOT_FOUND',
    'APPOINTMENT_TRANSITION_INVALID',
    'APPOINTMENT_OVERLAP',
    'INVOICE_HAS_PAYMENTS',
    'INVOICE_VOID',
    'PRECONDITION_FAILED',
    'REFUND_EXCEEDS_PAYMENT',
    'TOO_MANY_REQUESTS',
    'STORAGE_FAILED',
    'AUDIT_CHAIN_BROKEN',
  ],
  'clinic-api-1.3.md': [
    'VERSION_UNSUPPORTED',
    'LOGIN_FAILED',
    'PIN_NOT_SET',
    'PERSON_DISABLED',
    'SESSION_ENDED',
    'DEVICE_UNKNOWN',
    'DEVICE_REVOKED',
    'PAIRING_CODE_INVALID',
    'ROLE_FORBIDDEN',
    'SESSION_REQUIRED',
    'SERVER_PC_ONLY',
    'PATIENT_RESTRICTED',
    'LAST_ADMIN',
    'PERSON_NAME_TAKEN',
    'DEVICE_NAME_TAKEN',
    'DOCTOR_NAME_TAKEN',
    'SERVICE_NAME_TAKEN',
    'INVOICE_FULLY_CREDITED',
    'FIRST_PERSON_ADMIN',
    'PIN_INVALID',
    'TEMPLATE_INVALID',
    'SETTING_REQUIRED',
    'DOCTOR_RETIRED',
    'SERVICE_RETIRED',
    'CREDIT_EXCEEDS_BALANCE',
    'PERSON_LOCKED',
    'INVOICE_CURRENCY_MISMATCH',
    // The desk's own (exit 1 and 3).
    'LOGIN_REQUIRED',
    'STAFF_REQUIRED',
    'CA_FINGERPRINT_MISMATCH',
    'SERVER_UNTRUSTED',
    'SERVER_NOT_ON_NETWORK',
    'DESK_ALREADY_JOINED',
    'DESK_NOT_JOINED',
    'SERVER_UNREACHABLE',
    'SERVER_NO_ANSWER',
  ],
};

describe('openapi: every error code', () => {
  const codes = allErrorCodes();

  it("lists every code of the specification's error tables", () => {
    for (const [table, specified] of Object.entries(SPECIFIED_CODES)) {
      const missing = specified.filter((code) => !codes.includes(code));
      assert.deepEqual(missing, [], `codes of ${table} the description does not list`);
    }
  });

  it('lists each code once, however many factories give it, in the order src/errors.ts defines them', () => {
    assert.equal(
      new Set(codes).size,
      codes.length,
      `listed twice: ${codes.filter((code, index) => codes.indexOf(code) !== index).join(', ')}`,
    );
    assert.deepEqual(codes.slice(0, 3), ['UNAUTHENTICATED', 'FORBIDDEN', 'HOST_NOT_ALLOWED']);
    assert.equal(codes.at(-1), 'INTERNAL');
    for (const shared of ['TOO_MANY_REQUESTS', 'STORAGE_FAILED', 'TEMPLATE_INVALID', 'PATIENT_NOT_FOUND'])
      assert.equal(codes.filter((code) => code === shared).length, 1, shared);
  });

  it('spells every code as the specification does: SCREAMING_SNAKE, stable for a client to switch on', () => {
    for (const code of codes) assert.match(code, /^[A-Z]+(?:_[A-Z0-9]+)*$/);
  });
});

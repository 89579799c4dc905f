import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errors, refusalBody, ValidationError, type AppError } from '../src/errors.js';

/**
 * The one coded error type and its factories (decisions.md §1; the error tables of
 * clinic-api-1.1.md, 1.2.md and 1.3.md): each code's status, the headers its status calls for,
 * its body, and the sentences the specification quotes as the desk prints them.
 */

/** A refusal as a client tells it apart: its status and its code. */
const statusAndCode = (error: AppError) => [error.status, error.code];

describe('errors: the coded refusals of the specification', () => {
  it("gives each code of the specification's error tables its status", () => {
    const table: [AppError, number, string][] = [
      // decisions.md §1
      [errors.unauthenticated(), 401, 'UNAUTHENTICATED'],
      [errors.forbidden('payments:write'), 403, 'FORBIDDEN'],
      [errors.moduleDisabled('billing'), 403, 'MODULE_DISABLED'],
      [errors.patientNotFound(), 404, 'PATIENT_NOT_FOUND'],
      [errors.patientNotFound(422), 422, 'PATIENT_NOT_FOUND'],
      [errors.invoiceNotFound(), 404, 'INVOICE_NOT_FOUND'],
      [errors.notFound(), 404, 'NOT_FOUND'],
      [errors.methodNotAllowed(['GET']), 405, 'METHOD_NOT_ALLOWED'],
      [errors.payloadTooLarge(4 * 1024 * 1024), 413, 'PAYLOAD_TOO_LARGE'],
      [errors.documentTooLarge(25 * 1024 * 1024), 413, 'DOCUMENT_TOO_LARGE'],
      [errors.unsupportedMediaType('application/json'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [errors.patientContactRequired(), 422, 'PATIENT_CONTACT_REQUIRED'],
      [errors.doctorNotFound(), 422, 'DOCTOR_NOT_FOUND'],
      [errors.serviceNotFound(), 422, 'SERVICE_NOT_FOUND'],
      [errors.documentTypeInvalid(['other']), 422, 'DOCUMENT_TYPE_INVALID'],
      [errors.documentEmpty(), 422, 'DOCUMENT_EMPTY'],
      [errors.paymentExceedsBalance('6.00 EUR'), 422, 'PAYMENT_EXCEEDS_BALANCE'],
      [errors.idempotencyKeyReused(), 422, 'IDEMPOTENCY_KEY_REUSED'],
      [errors.databaseBusy(), 503, 'DATABASE_BUSY'],
      [errors.internal(), 500, 'INTERNAL'],
      // clinic-api-1.1.md
      [errors.appointmentNotFound(), 404, 'APPOINTMENT_NOT_FOUND'],
      [errors.documentNotFound(), 404, 'DOCUMENT_NOT_FOUND'],
      // clinic-api-1.2.md
      [errors.hostNotAllowed(), 403, 'HOST_NOT_ALLOWED'],
      [errors.originNotAllowed(), 403, 'ORIGIN_NOT_ALLOWED'],
      [errors.paymentNotFound(), 404, 'PAYMENT_NOT_FOUND'],
      [errors.appointmentTransitionInvalid('completed', 'booked'), 409, 'APPOINTMENT_TRANSITION_INVALID'],
      [errors.appointmentOverlap(['A-000041']), 409, 'APPOINTMENT_OVERLAP'],
      [errors.invoiceHasPayments('6.00 EUR'), 409, 'INVOICE_HAS_PAYMENTS'],
      [errors.invoiceVoid(), 409, 'INVOICE_VOID'],
      [errors.preconditionFailed(3), 412, 'PRECONDITION_FAILED'],
      [errors.refundExceedsPayment('6.00 EUR'), 422, 'REFUND_EXCEEDS_PAYMENT'],
      [errors.failedKeysBlocked(1000), 429, 'TOO_MANY_REQUESTS'],
      [errors.keyRateLimited(1000, 60), 429, 'TOO_MANY_REQUESTS'],
      [errors.readNotRecorded(true), 507, 'STORAGE_FAILED'],
      // clinic-api-1.3.md
      [errors.versionUnsupported('1.5.0', '1.3.0', ['1.2', '1.3', '1.4']), 400, 'VERSION_UNSUPPORTED'],
      [errors.loginFailed('unknown_person'), 401, 'LOGIN_FAILED'],
      [errors.pinNotSet(), 401, 'PIN_NOT_SET'],
      [errors.personDisabled(), 401, 'PERSON_DISABLED'],
      [errors.sessionEnded('idle'), 401, 'SESSION_ENDED'],
      [errors.deviceUnknown(), 401, 'DEVICE_UNKNOWN'],
      [errors.deviceRevoked('Reception 2'), 401, 'DEVICE_REVOKED'],
      [errors.pairingCodeInvalid(), 401, 'PAIRING_CODE_INVALID'],
      [errors.roleForbidden(['admin'], ['reception']), 403, 'ROLE_FORBIDDEN'],
      [errors.sessionRequired(), 403, 'SESSION_REQUIRED'],
      [errors.serverPcOnly('backup', 'https://clinic-pc:8080'), 403, 'SERVER_PC_ONLY'],
      [errors.patientRestricted('P-000042', false), 403, 'PATIENT_RESTRICTED'],
      [errors.lastAdmin('Anna'), 409, 'LAST_ADMIN'],
      [errors.personNameTaken('Anna'), 409, 'PERSON_NAME_TAKEN'],
      [errors.deviceNameTaken('Reception 2'), 409, 'DEVICE_NAME_TAKEN'],
      [errors.doctorNameTaken('3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e', 'Dr. Berger'), 409, 'DOCTOR_NAME_TAKEN'],
      [errors.serviceNameTaken('5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d', 'Kontrolle'), 409, 'SERVICE_NAME_TAKEN'],
      [errors.invoiceFullyCredited(), 409, 'INVOICE_FULLY_CREDITED'],
      [errors.firstPersonAdmin(), 422, 'FIRST_PERSON_ADMIN'],
      [errors.pinInvalid('length'), 422, 'PIN_INVALID'],
      [errors.templateInvalid('{doctor_name}', 'sms_template', ['first_name']), 422, 'TEMPLATE_INVALID'],
      [errors.gatewayTemplateInvalid('not JSON'), 422, 'TEMPLATE_INVALID'],
      [errors.settingRequired('name'), 422, 'SETTING_REQUIRED'],
      [errors.doctorRetired('3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e'), 422, 'DOCTOR_RETIRED'],
      [errors.serviceRetired('5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d'), 422, 'SERVICE_RETIRED'],
      [errors.creditExceedsBalance(40, '40.00 EUR'), 422, 'CREDIT_EXCEEDS_BALANCE'],
      [errors.invoiceCurrencyMismatch('EUR'), 422, 'INVOICE_CURRENCY_MISMATCH'],
      [errors.personLocked('2026-11-30T09:15:00.000Z', 900_000, '10:15'), 423, 'PERSON_LOCKED'],
    ];
    for (const [error, status, code] of table) assert.deepEqual(statusAndCode(error), [status, code], code);
  });

  it('sends WWW-Authenticate: Bearer with every 401 a key, a session or a desk PC can get', () => {
    const refusals = [
      errors.unauthenticated(),
      errors.loginFailed('wrong_pin', 4),
      errors.pinNotSet(),
      errors.personDisabled(),
      errors.sessionEnded('expired'),
      errors.deviceUnknown(),
      errors.deviceRevoked('Reception 2'),
      errors.pairingCodeInvalid(),
    ];
    for (const error of refusals) assert.deepEqual([error.status, error.headers['WWW-Authenticate']], [401, 'Bearer'], error.code);
    assert.deepEqual(errors.methodNotAllowed(['GET', 'POST']).headers, { Allow: 'GET, POST' });
    assert.deepEqual(errors.databaseBusy().headers, { 'Retry-After': '1' });
  });

  it('asks a throttled client to wait the whole seconds left, rounded up and at least one, and says the same number', () => {
    const waits: [number, string][] = [
      [42_000, '42'],
      [42_001, '43'],
      [999, '1'],
      [1, '1'],
      [0, '1'],
    ];
    for (const [waitMs, seconds] of waits) {
      const blocked = errors.failedKeysBlocked(waitMs);
      assert.equal(blocked.headers['Retry-After'], seconds, `${waitMs} ms`);
      assert.match(blocked.message, new RegExp(`for ${seconds} more second\\(s\\)`), `${waitMs} ms`);
    }
    assert.equal(errors.keyRateLimited(59_500, 100).headers['Retry-After'], '60');
    assert.equal(errors.auditedReadsLimited(30_000, 3000).headers['Retry-After'], '30');
    const locked = errors.personLocked('2026-11-30T09:15:00.000Z', 899_001, '10:15');
    assert.deepEqual([locked.headers['Retry-After'], locked.details], ['900', { locked_until: '2026-11-30T09:15:00.000Z' }]);
  });

  it('renders a refusal as detail {code, message} and the fields the interface adds to it', () => {
    assert.deepEqual(refusalBody(errors.invoiceVoid()), {
      detail: { code: 'INVOICE_VOID', message: 'This invoice is void: it takes no payment.' },
    });
    assert.deepEqual(refusalBody(errors.appointmentOverlap(['A-000041', 'A-000042'])).detail, {
      code: 'APPOINTMENT_OVERLAP',
      message: 'The doctor already has A-000041, A-000042 at that time.',
      conflicts: ['A-000041', 'A-000042'],
    });
    const details = [
      errors.feedPositionLost(1008, 1003).details,
      errors.creditExceedsBalance(40.5, '40.50 EUR').details,
      errors.doctorRetired('3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e').details,
      errors.roleForbidden(['admin', 'billing'], []).details,
      errors.loginFailed('wrong_pin', 2).details,
      errors.loginFailed('unknown_person').details,
      errors.pinInvalid('repeated').details,
      errors.settingRequired('retention').details,
      errors.patientRestricted(null, true).details,
    ];
    assert.deepEqual(details, [
      { restart_after: 1003 },
      { balance: 40.5 },
      { id: '3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e' },
      { allowed_roles: ['admin', 'billing'], roles: [] },
      { reason: 'wrong_pin', attempts_left: 2 },
      { reason: 'unknown_person' },
      { reason: 'repeated' },
      { setting: 'retention' },
      {},
    ]);
    const validation = new ValidationError([
      { type: 'missing', loc: ['body', 'first_name'], msg: 'Field required' },
      { type: 'uuid_parsing', loc: ['path', 'invoice_id'], msg: 'Input should be a valid UUID' },
    ]);
    assert.equal(validation.message, 'body.first_name: Field required; path.invoice_id: Input should be a valid UUID');
  });

  it("names the clinic's contact rule in force in PATIENT_CONTACT_REQUIRED, 1.0.0's rule when none is given", () => {
    const both = errors.patientContactRequired();
    assert.deepEqual(both.details, { rule: 'email-and-mobile' });
    assert.equal(both.message, "A patient needs both an email address and a mobile number. The clinic's contact rule is email-and-mobile.");
    const either = errors.patientContactRequired('email-or-mobile');
    assert.deepEqual(either.details, { rule: 'email-or-mobile' });
    assert.equal(either.message, "A patient needs an email address or a mobile number. The clinic's contact rule is email-or-mobile.");
  });

  it('says what the desk prints in the words clinic-api-1.3.md quotes', () => {
    assert.equal(
      errors.versionUnsupported('1.5.0', '1.3.0', ['1.2', '1.3', '1.4']).message,
      'this desk runs clinic 1.5.0 and the server 1.3.0; install clinic 1.3 or 1.4 here, or update the server',
    );
    assert.deepEqual(errors.versionUnsupported('1.5.0', '1.3.0', ['1.2', '1.3', '1.4']).details, {
      desk_version: '1.5.0',
      server_version: '1.3.0',
      accepted: ['1.2', '1.3', '1.4'],
    });
    assert.equal(errors.loginRequired().message, 'this command needs a person; log in with: clinic login --as NAME');
    assert.equal(
      errors.serverPcOnly('backup', 'https://clinic-pc:8080').message,
      'clinic backup runs on the server PC only; this PC is a desk of https://clinic-pc:8080',
    );
    assert.equal(
      errors.serverUnreachable('https://clinic-pc:8080').message,
      'https://clinic-pc:8080 did not answer within 3 s; nothing was sent',
    );
    for (const reason of ['idle', 'expired', 'logged_out', 'replaced', 'pin_reset', 'device_revoked'] as const) {
      const ended = errors.sessionEnded(reason);
      assert.match(ended.message, /; log in with: clinic login --as NAME$/, reason);
      assert.deepEqual(ended.details, { reason }, reason);
    }
  });

  it("names a lost answer's Idempotency-Key so that the desk can repeat the change once, and only then", () => {
    const key = 'desk-6c1f0e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
    const change = errors.serverNoAnswer('https://clinic-pc:8080', key);
    assert.deepEqual([change.status, change.details], [504, { idempotency_key: key }]);
    assert.equal(
      change.message,
      `https://clinic-pc:8080 did not answer, twice; whether it was done is not known: repeat the command with --idempotency-key ${key} (done once, it is not done again)`,
    );
    const read = errors.serverNoAnswer('https://clinic-pc:8080', undefined);
    assert.deepEqual([read.message, read.details], ['https://clinic-pc:8080 did not answer, twice', {}]);
  });

  it("names at most five lines of the audit anchor's checkpoints that fail, and keeps at most 100 of them in detail", () => {
    const one = errors.auditCheckpointInvalid('/data/audit-anchor', [3]);
    assert.match(one.message, /line 3 of its checkpoints file does not carry/);
    const lines = Array.from({ length: 150 }, (_, index) => index + 1);
    const many = errors.auditCheckpointInvalid('/data/audit-anchor', lines);
    assert.match(many.message, /line 1, 2, 3, 4, 5 and 145 more of its checkpoints file do not carry/);
    assert.deepEqual(many.details, { lines: lines.slice(0, 100) });
    const five = errors.auditCheckpointInvalid('/data/audit-anchor', [1, 2, 3, 4, 5]);
    assert.match(five.message, /line 1, 2, 3, 4, 5 of its checkpoints file do not carry/);
  });
});

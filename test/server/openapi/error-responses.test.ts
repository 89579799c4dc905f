import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { errors, refusalBody, type AppError } from '../../../src/errors.js';
import { MAX_ISSUES } from '../../../src/domain/validation/validate.js';
import {
  codedResponse,
  errorSchemas,
  headerComponents,
  headersObject,
  unprocessableResponse,
} from '../../../src/server/openapi/error-responses.js';
import type { JsonSchema } from '../../../src/server/openapi/field-schemas.js';

/**
 * The two error bodies of decisions.md §1 as the interface description gives them: the
 * pydantic-style validation body and the coded `{detail: {code, message}}`, each response naming
 * the codes it can carry and the headers their statuses send, so that a client generated from the
 * description reads every refusal the server gives and a contract check refuses any other.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
let documents = 0;
/** Whether `value` is valid against `schema`, its `#/components/...` references resolved against the error schemas. */
function isValid(schema: unknown, value: unknown): boolean {
  const id = `urn:clinic:errors-${documents++}`;
  ajv.addSchema({ components: { schemas: errorSchemas() }, checked: schema }, id);
  return ajv.compile({ $ref: `${id}#/checked` })(value) as boolean;
}

/** The JSON schema of a response's body. */
const bodySchema = (response: JsonSchema) => (response.content as Record<string, { schema: JsonSchema }>)['application/json']!.schema;

/** Every refusal the API answers with fields besides code and message (the desk's own aside). */
const REFUSALS_WITH_FIELDS: AppError[] = [
  errors.appointmentOverlap(['A-000041', 'A-000042']),
  errors.feedPositionLost(1008, 1003),
  errors.doctorRetired('3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e'),
  errors.serviceRetired('5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d'),
  errors.creditExceedsBalance(40.5, '40.50 EUR'),
  errors.patientContactRequired('email-or-mobile'),
  errors.loginFailed('wrong_pin', 2),
  errors.loginFailed('wrong_code'),
  errors.sessionEnded('replaced'),
  errors.pinInvalid('sequence'),
  errors.personLocked('2026-11-30T09:15:00.000Z', 900_000, '10:15'),
  errors.roleForbidden(['admin', 'billing'], ['reception']),
  errors.patientRestricted('P-000042', true),
  errors.versionUnsupported('1.5.0', '1.3.0', ['1.2', '1.3', '1.4']),
];

describe('openapi: the error bodies and responses', () => {
  it('describes a response of refusals by exactly their codes: their bodies pass, a body of another code does not', () => {
    const response = codedResponse([errors.invoiceVoid(), errors.invoiceHasPayments()]);
    assert.equal(response.description, 'INVOICE_VOID, INVOICE_HAS_PAYMENTS');
    const schema = bodySchema(response);
    assert.ok(isValid(schema, refusalBody(errors.invoiceVoid())), 'INVOICE_VOID');
    assert.ok(isValid(schema, refusalBody(errors.invoiceHasPayments('6.00 EUR'))), 'INVOICE_HAS_PAYMENTS');
    assert.ok(!isValid(schema, refusalBody(errors.paymentExceedsBalance())), 'PAYMENT_EXCEEDS_BALANCE passed as INVOICE_VOID');
    assert.ok(!isValid(schema, { detail: { code: 'INVOICE_VOID' } }), 'a refusal without its message passed');
    assert.ok(!isValid(schema, { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required' }] }), 'a validation body passed');
    assert.deepEqual((response.content as any)['application/json'].examples, {
      INVOICE_VOID: { value: refusalBody(errors.invoiceVoid()) },
      INVOICE_HAS_PAYMENTS: { value: refusalBody(errors.invoiceHasPayments()) },
    });
  });

  it('lets through every field a refusal of the API adds to detail, and no field of its own', () => {
    const coded = errorSchemas().CodedError;
    for (const error of REFUSALS_WITH_FIELDS)
      assert.ok(isValid(coded, refusalBody(error)), `${error.code}: ${JSON.stringify(refusalBody(error))}`);
    assert.ok(!isValid(coded, { detail: { code: 'INVOICE_VOID', message: 'void', stack: 'at …' } }), 'an unknown member of detail passed');
    assert.ok(!isValid(coded, { detail: { code: 'NO_SUCH_CODE', message: 'Nothing.' } }), 'a code no factory gives passed');
    assert.ok(!isValid(coded, { detail: { code: 'CREDIT_EXCEEDS_BALANCE', message: 'x', balance: -1 } }), 'a negative balance passed');
  });

  it('declares with each response the headers its refusals send, and X-Request-Id with every one', () => {
    const headerNames = (response: JsonSchema) => Object.keys(response.headers as object);
    assert.deepEqual(headerNames(codedResponse([errors.unauthenticated(), errors.sessionEnded('idle')])), [
      'X-Request-Id',
      'WWW-Authenticate',
    ]);
    assert.deepEqual(headerNames(codedResponse([errors.databaseBusy()])), ['X-Request-Id', 'Retry-After']);
    assert.deepEqual(headerNames(codedResponse([errors.methodNotAllowed(['GET'])])), ['X-Request-Id', 'Allow']);
    assert.deepEqual(headerNames(codedResponse([errors.invoiceVoid()])), ['X-Request-Id']);
    assert.deepEqual(headersObject(['ETag']), {
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      ETag: { $ref: '#/components/headers/ETag' },
    });
    const components = headerComponents();
    for (const name of ['X-Request-Id', 'WWW-Authenticate', 'Retry-After', 'Allow', 'ETag', 'Content-Disposition', 'Content-Length'])
      assert.equal((components[name] as { required?: boolean }).required, true, name);
    assert.equal((components.Link as { required?: boolean }).required, undefined, 'Link is required, though the last page has none');
    const retryAfter = (components['Retry-After'] as { schema: JsonSchema }).schema;
    assert.ok(isValid(retryAfter, errors.failedKeysBlocked(42_001).headers['Retry-After']), 'Retry-After of a throttle');
    assert.ok(!isValid(retryAfter, 'Wed, 21 Oct 2026 07:28:00 GMT'), 'an HTTP date passed as Retry-After');
  });

  it('describes a 422 as the validation body, the coded one, or either when an operation has both', () => {
    const missing = [{ type: 'missing', loc: ['body', 'first_name'], msg: 'Field required', input: {} }];
    const validationOnly = unprocessableResponse(missing, []);
    assert.deepEqual(bodySchema(validationOnly), { $ref: '#/components/schemas/HTTPValidationError' });
    assert.equal(validationOnly.description, 'Validation error (`detail` is a list)');
    const both = unprocessableResponse(missing, [errors.patientContactRequired()]);
    assert.equal(both.description, 'Validation error (`detail` is a list), PATIENT_CONTACT_REQUIRED');
    assert.deepEqual(Object.keys((both.content as any)['application/json'].examples), ['validation', 'PATIENT_CONTACT_REQUIRED']);
    const schema = bodySchema(both);
    assert.ok(isValid(schema, { detail: missing }), 'the validation body');
    assert.ok(isValid(schema, refusalBody(errors.patientContactRequired())), 'the coded body');
    assert.ok(!isValid(schema, refusalBody(errors.documentEmpty())), 'another code passed');
    const codedOnly = unprocessableResponse([], [errors.documentEmpty()]);
    assert.ok(!('oneOf' in bodySchema(codedOnly)), 'one body is described as one');
  });

  it(`takes a validation body of 1 to ${MAX_ISSUES} issues, each with a type, a non-empty loc of names and positions, and a msg`, () => {
    const validation = errorSchemas().HTTPValidationError;
    const issue = {
      type: 'string_too_long',
      loc: ['body', 'notes', 0],
      msg: 'String should have at most 500 characters',
      ctx: { max_length: 500 },
    };
    assert.ok(isValid(validation, { detail: [issue] }), 'one issue');
    assert.ok(isValid(validation, { detail: Array(MAX_ISSUES).fill(issue) }), `${MAX_ISSUES} issues`);
    const refused: [string, unknown][] = [
      ['no issue', { detail: [] }],
      [`${MAX_ISSUES + 1} issues`, { detail: Array(MAX_ISSUES + 1).fill(issue) }],
      ['an empty loc', { detail: [{ ...issue, loc: [] }] }],
      ['a loc of an object', { detail: [{ ...issue, loc: ['body', { field: 'notes' }] }] }],
      ['no msg', { detail: [{ type: issue.type, loc: issue.loc }] }],
      ['a member of its own', { detail: [{ ...issue, url: 'https://errors.pydantic.dev' }] }],
    ];
    for (const [what, body] of refused) assert.ok(!isValid(validation, body), `${what} passed`);
  });
});

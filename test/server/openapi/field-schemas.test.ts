import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fieldsValidator } from '../../../src/domain/validation/validate.js';
import { PAYMENT_INPUT_FIELDS } from '../../../src/fields/billing-fields.js';
import { field, type FieldSpec } from '../../../src/fields/field-spec.js';
import { PATIENT_INPUT_FIELDS, PATIENT_RESPONSE_FIELDS } from '../../../src/fields/patient-fields.js';
import { fieldSchema, fieldsIn, objectSchema, type JsonSchema } from '../../../src/server/openapi/field-schemas.js';

/**
 * The JSON Schemas of the interface description, derived from the field descriptions the
 * validators are built from (decisions.md §3; spec §2 and §8's limits): a client or proxy that
 * validates by them accepts what the server accepts, and reads every field the server returns.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
/** Whether `value` is valid against `schema`. */
const isValid = (schema: JsonSchema, value: unknown) => ajv.compile(schema)(value) as boolean;

/** The schema of the field named `name` of `fields` in `direction`. */
const schemaOf = (fields: readonly FieldSpec[], name: string, direction: 'request' | 'response') =>
  fieldSchema(
    fields.find((spec) => spec.name === name)!,
    direction,
  );

describe('openapi: field schemas', () => {
  it('never refuses a payment amount the server takes, and refuses what the server refuses by its digits and signs (spec 2.9)', () => {
    const amount = schemaOf(PAYMENT_INPUT_FIELDS, 'amount', 'request');
    const server = fieldsValidator(PAYMENT_INPUT_FIELDS, 'body');
    const serverTakes = (value: unknown) => server.issues({ amount: value, method: 'cash' }).length === 0;
    const taken: unknown[] = [10, 0.01, 99_999_999.99, '10.00', '99999999.99', '00099999999.99', '1.500', '.5', '5.', '+5'];
    for (const value of taken) {
      assert.equal(serverTakes(value), true, `the server refuses ${JSON.stringify(value)}`);
      assert.equal(isValid(amount, value), true, `the schema refuses ${JSON.stringify(value)}, which the server takes`);
    }
    // What a schema can say: a number not above 0 or of 9 whole digits, a numeral of too many digits, or none.
    const refused: unknown[] = [0, -1, 100_000_000, '-5', '100000000', '1.005', '1,50', '', '.', 'abc', ' 5', true, null];
    for (const value of refused) {
      assert.equal(serverTakes(value), false, `the server takes ${JSON.stringify(value)}`);
      assert.equal(isValid(amount, value), false, `the schema takes ${JSON.stringify(value)}, which the server refuses`);
    }
  });

  it('describes a response with every field present and nothing else, request-only fields left out', () => {
    const patient = objectSchema(PATIENT_RESPONSE_FIELDS, 'response');
    const names = PATIENT_RESPONSE_FIELDS.map((spec) => spec.name);
    assert.deepEqual(patient.required, names);
    assert.equal(patient.additionalProperties, false);
    assert.ok(!names.includes('link_existing_portal_user'), 'the response lists a request-only field');
    const request = objectSchema(PATIENT_INPUT_FIELDS, 'request');
    assert.ok('link_existing_portal_user' in (request.properties as object), 'the request leaves out link_existing_portal_user');
    assert.deepEqual(request.required, ['first_name', 'last_name']);
    assert.equal(request.additionalProperties, undefined, 'unknown request fields are refused, not ignored');
    assert.deepEqual(
      fieldsIn(PATIENT_INPUT_FIELDS, 'response').map((spec) => spec.name),
      PATIENT_INPUT_FIELDS.filter((spec) => spec.name !== 'link_existing_portal_user').map((spec) => spec.name),
    );
  });

  it('gives money as a number in a response and a decimal as its canonical text', () => {
    const discount = schemaOf(PATIENT_INPUT_FIELDS, 'discount_percent', 'response');
    assert.ok(isValid(discount, '10.50'), 'a canonical decimal');
    assert.ok(!isValid(discount, 10.5), 'a decimal as a number in a response');
    assert.ok(isValid(schemaOf(PATIENT_INPUT_FIELDS, 'discount_percent', 'request'), 10.5), 'a decimal as a number in a request');
    const paid = fieldSchema(field.money('amount_paid', { minimum: 0, maxWholeDigits: 8, maxFractionDigits: 2 }), 'response');
    assert.ok(isValid(paid, 120.5) && isValid(paid, 0), 'money as a JSON number, 0 included');
    assert.ok(!isValid(paid, '120.50'), 'money as text in a response');
    assert.ok(!isValid(paid, -1), 'negative money in a response');
  });

  it('says a default in words in a request (a generated client would make the field required) and as a default in a response', () => {
    const consent = PATIENT_INPUT_FIELDS.find((spec) => spec.name === 'gdpr_consent')!;
    const request = fieldSchema(consent, 'request');
    assert.equal(request.default, undefined);
    assert.match(String(request.description), /Default: false/);
    assert.equal(fieldSchema(consent, 'response').default, false);
    const unpaid = fieldSchema(field.boolean('unpaid', { default: false, acceptsText: true }), 'request');
    assert.equal(unpaid.description, 'Default: false. true, false, 1 or 0');
  });

  it('adds null to the type, and to the values, of a nullable field only', () => {
    const note = schemaOf(PAYMENT_INPUT_FIELDS, 'note', 'request');
    assert.deepEqual([note.type, note.maxLength], [['string', 'null'], 500]);
    assert.ok(isValid(note, null) && isValid(note, 'x'.repeat(500)), 'null and 500 characters');
    assert.ok(!isValid(note, 'x'.repeat(501)), '501 characters');
    const method = schemaOf(PAYMENT_INPUT_FIELDS, 'method', 'request');
    assert.deepEqual(method.enum, ['cash', 'card', 'bank', 'other']);
    assert.ok(!isValid(method, null), 'a required literal took null');
    const status = fieldSchema(field.literal('reason', { values: ['idle', 'expired'], nullable: true }), 'response');
    assert.deepEqual(
      [status.type, status.enum],
      [
        ['string', 'null'],
        ['idle', 'expired', null],
      ],
    );
    assert.ok(isValid(status, null), 'a nullable literal refused null');
  });

  it('takes a request date-time without seconds or offset (clinic time) and answers UTC date-times', () => {
    const start = fieldSchema(field.datetime('start_at', { required: true }), 'request');
    for (const value of ['2026-12-01T09:00', '2026-12-01T09:00Z', '2026-12-01T09:00:00.000+01:00'])
      assert.ok(isValid(start, value), `a request took no ${value}`);
    assert.ok(!isValid(start, '01.12.2026 09:00'), 'a date-time as people write it');
    const created = fieldSchema(field.datetime('created_at', { required: true, readOnly: true }), 'response');
    assert.deepEqual([created.format, created.readOnly], ['date-time', true]);
    assert.ok(isValid(created, '2026-12-01T08:00:00.000Z'), 'UTC with Z');
  });
});

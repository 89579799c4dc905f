import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LIST_DOCTORS } from '../../../src/domain/catalog.js';
import { CREATE_PATIENT } from '../../../src/domain/patients/create-patient.js';
import { READ_PATIENT } from '../../../src/domain/patients/read-patient.js';
import { RECORD_PAYMENT } from '../../../src/domain/payments/record-payment.js';
import { defineUseCase } from '../../../src/domain/use-case.js';
import { field } from '../../../src/fields/field-spec.js';
import { REPLAYED_HEADER, useCaseOperation } from '../../../src/server/api/operation.js';
import { buildPatient, idempotencyHeader } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';

/**
 * An API operation made from a use case (style.md §12, "an HTTP operation wraps it with method,
 * path, scope, status and documentation"): what it takes from the use case, so that the API, the
 * desk and the interface description cannot disagree, and how its answer says it is a replay
 * (clinic-api-1.3.md, "Idempotent-Replayed: true").
 */

const LOCATION = { Location: { description: 'Where it is', schema: { type: 'string' } } };
const PAYMENT_RESULT = { kind: 'model', status: 200, model: 'PaymentResult', description: 'Recorded', example: {} } as const;

describe('server: operations made from use cases', () => {
  const server = useTestServer();

  it("takes the use case's summary, roles, module, inputs and refusals, and adds only what HTTP says", () => {
    const op = useCaseOperation(RECORD_PAYMENT, {
      method: 'post',
      path: '/invoices/{invoice_id}/payments',
      operationId: 'recordPayment',
      tag: 'billing',
      scope: 'payments:write',
      bodyExample: { amount: '10.00', method: 'cash' },
      result: { ...PAYMENT_RESULT, headers: LOCATION },
      answer: (_ctx, { payment }) => payment,
    });
    assert.deepEqual(
      [op.summary, op.roles, op.module, op.pathFields, op.headerFields, op.refusals],
      [
        RECORD_PAYMENT.summary,
        RECORD_PAYMENT.roles,
        'payments',
        RECORD_PAYMENT.input.path,
        RECORD_PAYMENT.input.header,
        RECORD_PAYMENT.refusals,
      ],
    );
    assert.deepEqual(op.body, { kind: 'json', model: 'PaymentRequest', example: { amount: '10.00', method: 'cash' } });
    assert.deepEqual(
      [op.method, op.path, op.scope, op.useCase],
      ['post', '/invoices/{invoice_id}/payments', 'payments:write', RECORD_PAYMENT],
    );
    // The payment keeps its own replay (forever keys): the headers are those HTTP gives it.
    assert.deepEqual(Object.keys(op.result.kind === 'model' ? (op.result.headers ?? {}) : {}), ['Location']);
    // A use case that answers once per Idempotency-Key says so on its answer, beside the headers HTTP gives it.
    const create = useCaseOperation(CREATE_PATIENT, {
      method: 'post',
      path: '/patients',
      operationId: 'createPatient',
      tag: 'patients',
      scope: 'patients:write',
      result: { kind: 'model', status: 201, model: 'Patient', description: 'Created', example: {}, headers: LOCATION },
    });
    assert.deepEqual(Object.keys(create.result.kind === 'model' ? (create.result.headers ?? {}) : {}), [
      ...Object.keys(REPLAYED_HEADER),
      'Location',
    ]);
    assert.equal(op.recordsRead, undefined);
  });

  it('marks a read that records audit events, and says nothing of a module, inputs or refusals a use case does not have', () => {
    const read = useCaseOperation(READ_PATIENT, {
      method: 'get',
      path: '/patients/{patient_id}',
      operationId: 'getPatient',
      summary: 'The patient as it stands now',
      tag: 'patients',
      scope: 'patients:read',
      result: { kind: 'model', status: 200, model: 'Patient', description: 'The patient', example: {} },
    });
    assert.deepEqual([read.summary, read.recordsRead, read.module], ['The patient as it stands now', true, undefined]);
    const lookup = useCaseOperation(LIST_DOCTORS, {
      method: 'get',
      path: '/doctors',
      operationId: 'listDoctors',
      tag: 'lookups',
      scope: 'lookups:read',
      result: { kind: 'model', status: 200, model: 'Doctor', list: true, description: 'Doctors', example: [] },
    });
    assert.deepEqual(
      ['recordsRead', 'module', 'body', 'refusals', 'headerFields', 'pathFields'].filter((name) => name in lookup),
      [],
    );
    assert.deepEqual(lookup.queryFields, LIST_DOCTORS.input.query);
  });

  it('refuses to mount a use case whose JSON body no request model of the interface description describes', () => {
    const undescribed = defineUseCase({
      summary: 'Take a body of its own',
      roles: [],
      input: { body: [field.string('note')] },
      refusals: [],
      access: 'read',
      run: () => ({}),
    });
    assert.throws(
      () =>
        useCaseOperation(undescribed, {
          method: 'post',
          path: '/notes',
          operationId: 'takeNote',
          tag: 'patients',
          result: { kind: 'model', status: 200, model: 'Doctor', description: 'x', example: {} },
          answer: () => ({ id: '', name: '', color: '', retired_at: null }),
        }),
      { message: 'a use case takes a JSON body that no request model of openapi/models.ts describes' },
    );
  });

  it('marks a replayed answer Idempotent-Replayed: true, and neither a first answer nor one without a key', async () => {
    const body = buildPatient({ last_name: 'Replay' });
    const first = await server.request('POST', '/patients', { body, headers: idempotencyHeader('op-test-1') });
    const again = await server.request('POST', '/patients', { body, headers: idempotencyHeader('op-test-1') });
    const keyless = await server.request('POST', '/patients', { body });
    assert.deepEqual(
      [first, again, keyless].map((response) => [response.status, response.headers.get('idempotent-replayed')]),
      [
        [201, null],
        [201, 'true'],
        [201, null],
      ],
    );
    assert.equal(again.body.id, first.body.id);
    assert.notEqual(keyless.body.id, first.body.id);
  });
});

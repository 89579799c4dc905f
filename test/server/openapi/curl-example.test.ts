// The example request of each operation in the interface description, a curl command an integrator pastes into a shell (the OpenAPI document of clinic-api-1.2.md and 1.3.md, intro).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { field } from '../../../src/fields/field-spec.js';
import { curlExample, headerName } from '../../../src/server/openapi/curl-example.js';
import { EXAMPLE_IDS } from '../../../src/server/openapi/examples.js';
import type { OperationSpec } from '../../../src/server/openapi/operation-spec.js';

const SAMPLE_PATIENT_ID = EXAMPLE_IDS.find(({ variable }) => variable === 'PATIENT')!.id;
const PATIENT_ID = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';

/** An operation of the test's own: no example of its own, so each parameter takes the description's common one. */
function operation(overrides: Partial<OperationSpec>): OperationSpec {
  return {
    method: 'get',
    path: '/patients',
    operationId: 'exampleOperation',
    summary: 'An example',
    tag: 'patients',
    roles: [],
    result: { kind: 'model', status: 200, model: 'Patient', description: 'The patient', example: {} },
    ...overrides,
  };
}

/** The words bash hands curl when `command` is pasted with API, KEY and PATIENT set. */
function argumentsCurlGets(command: string): string[] {
  const shell = `curl() { printf '%s\\n' "$@"; }\n${command}`;
  const printed = execFileSync('/bin/bash', ['--norc', '--noprofile', '-c', shell], {
    env: { API: 'http://127.0.0.1:8080/api/public/v1', KEY: 'ck_test', PATIENT: PATIENT_ID },
    encoding: 'utf8',
  });
  return printed.split('\n').slice(0, -1);
}

describe('curl examples', () => {
  it('write a read as a GET with the key, an id as its shell variable, the query percent-encoded and a list left readable', () => {
    const op = operation({
      path: '/patients/{patient_id}/documents',
      scope: 'documents:read',
      queryFields: [field.string('q'), field.string('status'), field.string('after'), field.integer('limit')],
    });
    // `after` has no example (it comes from a Link): an empty `after=` would be a 422, so it is left out.
    assert.equal(
      curlExample(op),
      'curl -s "$API/patients/$PATIENT/documents?q=lovelace%20ada&status=booked,arrived&limit=50" \\\n  -H "Authorization: Bearer $KEY"',
    );
  });

  it('hand curl, once pasted, the JSON body with the reader’s own id put in and a quote in the text intact', () => {
    const body = { patient_id: SAMPLE_PATIENT_ID, notes: "O'Brien's X-ray", start_at: '2026-12-01T09:00' };
    const op = operation({
      method: 'post',
      path: '/appointments',
      scope: 'appointments:write',
      headerFields: [field.string('idempotency-key')],
      body: { kind: 'json', model: 'Appointment', example: body },
    });
    const args = argumentsCurlGets(curlExample(op));
    assert.deepEqual(args.slice(0, -1), [
      '-s',
      'http://127.0.0.1:8080/api/public/v1/appointments',
      '-H',
      'Authorization: Bearer ck_test',
      '-H',
      'Idempotency-Key: till-2-receipt-0815',
      '-H',
      'Content-Type: application/json',
      '-d',
    ]);
    assert.deepEqual(JSON.parse(args.at(-1)!), { ...body, patient_id: PATIENT_ID });
  });

  it('name the method only where curl would not choose it, and send a PATCH as a merge patch', () => {
    const patch = curlExample(
      operation({ method: 'patch', path: '/patients/{patient_id}', body: { kind: 'json', model: 'Patient', example: { notes: null } } }),
    );
    assert.match(patch, /^curl -s -X PATCH "\$API\/patients\/\$PATIENT"/);
    assert.match(patch, /-H 'Content-Type: application\/merge-patch\+json' \\\n {2}-d '\{"notes":null\}'$/);
    // A POST without a body (confirm) is not one curl guesses; one with a body is.
    assert.match(
      curlExample(operation({ method: 'post', path: '/appointments/{appointment_id}/confirm' })),
      /^curl -s -X POST "\$API\/appointments\/\$APPOINTMENT\/confirm"$/,
    );
    assert.match(curlExample(operation({ method: 'delete', path: '/sessions/current' })), /^curl -s -X DELETE /);
    assert.match(curlExample(operation({ method: 'get' })), /^curl -s "\$API\/patients"$/);
  });

  it('save a download to a file rather than the terminal', () => {
    const download = (made?: { mediaType: string; example: string }) =>
      curlExample(operation({ path: '/patients/{patient_id}/export', result: { kind: 'download', description: 'A file', made } }));
    assert.equal(download(), 'curl -s -o scan-copy.pdf "$API/patients/$PATIENT/export"');
    assert.equal(download({ mediaType: 'application/zip', example: 'PK' }), 'curl -s -o patient-copy.zip "$API/patients/$PATIENT/export"');
  });

  it('send an upload as a form, the file from scan.pdf', () => {
    const upload = operation({
      method: 'post',
      path: '/patients/{patient_id}/documents',
      scope: 'documents:write',
      body: { kind: 'multipart', fields: [field.string('type')], file: 'file', example: { file: 'scan.pdf', type: 'xrays' } },
    });
    assert.equal(
      curlExample(upload),
      ['curl -s "$API/patients/$PATIENT/documents"', '-H "Authorization: Bearer $KEY"', "-F 'file=@scan.pdf'", "-F 'type=xrays'"].join(
        ' \\\n  ',
      ),
    );
  });

  it("give a desk PC's request its device token, and a person's session token where it needs one, instead of a key", () => {
    assert.equal(
      curlExample(operation({ path: '/sessions/current', credentials: 'session' })),
      'curl -s "$API/sessions/current" \\\n  -H "Authorization: Bearer $SESSION" \\\n  -H "Clinic-Device: $DEVICE"',
    );
    assert.equal(
      curlExample(operation({ path: '/sessions', credentials: 'device' })),
      'curl -s "$API/sessions" \\\n  -H "Clinic-Device: $DEVICE"',
    );
  });

  it('name headers as the specification writes them', () => {
    assert.equal(headerName('idempotency-key'), 'Idempotency-Key');
    assert.equal(headerName('if-match'), 'If-Match');
    assert.equal(headerName('clinic-version'), 'Clinic-Version');
  });
});

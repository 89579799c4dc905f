import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATIONS } from '../../../src/server/api/api-operations.js';
import { buildApiDescription } from '../../../src/server/openapi/description.js';
import { API_ROLE_ROWS, rolesOfRow } from '../../helpers/role-matrix.js';

/**
 * The OpenAPI 3.1 document built from the operations' declarations (spec §9; clinic-api-1.3.md:
 * "The OpenAPI document says 1.3.0 … gives each operation x-clinic-roles", security scheme
 * `clinicDevice`): who may call each operation, what it takes, and the refusals it documents.
 * The served document and its lint: test/server/routes/openapi.test.ts.
 */

type Json = Record<string, any>;

describe('openapi: the interface description', () => {
  const document = buildApiDescription(OPERATIONS) as Json;
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item as Json)) as Json[];
  const operation = (id: string) => operations.find((op) => op.operationId === id)!;
  /** The codes a response documents, its reference followed. */
  const codes = (response: Json): string[] => {
    const resolved = response.$ref ? document.components.responses[response.$ref.split('/').pop()] : response;
    const schema = resolved.content['application/json'].schema;
    return (schema.oneOf ?? [schema]).flatMap((variant: Json) => variant.properties?.detail?.properties?.code?.enum ?? []);
  };

  it('describes interface 1.3.0 with every operation once, under its path and method', () => {
    assert.deepEqual(
      [document.openapi, document.info.version, document.servers],
      ['3.1.0', '1.3.0', [{ url: '/api/public/v1', description: 'This server' }]],
    );
    assert.equal(operations.length, OPERATIONS.length);
    for (const op of OPERATIONS) assert.equal(document.paths[op.path][op.method].operationId, op.operationId, op.operationId);
    assert.deepEqual(Object.keys(document.paths['/patients/{patient_id}']), ['get', 'patch']);
  });

  it('gives each operation the roles of its row of the role matrix as x-clinic-roles, [] where no login is needed', () => {
    assert.deepEqual(operations.map((op) => op.operationId).sort(), Object.keys(API_ROLE_ROWS).sort());
    for (const [id, letters] of Object.entries(API_ROLE_ROWS)) assert.deepEqual(operation(id)['x-clinic-roles'], rolesOfRow(letters), id);
  });

  it('secures an operation by its key scope, a desk PC and its session, or the desk PC alone; the public ones not at all', () => {
    const security = (id: string) => operation(id).security;
    assert.deepEqual(security('recordPayment'), [{ bearer: ['payments:write'] }]);
    assert.deepEqual(security('getCurrentSession'), [{ bearer: [], clinicDevice: [] }]);
    assert.deepEqual(security('createSession'), [{ clinicDevice: [] }]);
    assert.deepEqual(security('listDocumentTypes'), []);
    assert.deepEqual(document.components.securitySchemes.clinicDevice, {
      type: 'apiKey',
      in: 'header',
      name: 'Clinic-Device',
      description:
        "A desk PC's token (`cld_…`, from POST /desk/join), sent with its person's session (`Bearer cls_…`, from POST /sessions)",
    });
    // Section 5: `authorization` is declared on every endpoint that reads one, never on the public lookups.
    const declaresAuthorization = (id: string) => (operation(id).parameters ?? []).some((p: Json) => p.name === 'authorization');
    assert.deepEqual(
      ['recordPayment', 'endCurrentSession', 'listDocumentTypes', 'listPaymentMethods', 'createSession'].map(declaresAuthorization),
      [true, true, false, false, false],
    );
    assert.deepEqual(codes(operation('getCurrentSession').responses['401']), [
      'UNAUTHENTICATED',
      'SESSION_ENDED',
      'PERSON_DISABLED',
      'DEVICE_UNKNOWN',
      'DEVICE_REVOKED',
    ]);
    assert.deepEqual(codes(operation('joinDesk').responses['401']), ['PAIRING_CODE_INVALID']);
    assert.equal(operation('listDocumentTypes').responses['401'], undefined);
  });

  it('names in each 413 the limits the server was started with', () => {
    const limited = buildApiDescription(OPERATIONS, { jsonBodyLimitBytes: 1_048_576, documentLimitBytes: 10_485_760 }) as Json;
    const examples = (path: string, method: string) =>
      Object.values(limited.paths[path][method].responses['413'].content['application/json'].examples).map(
        (e: any) => e.value.detail.message,
      );
    assert.deepEqual(examples('/patients', 'post'), ['The request body is larger than 1048576 bytes.']);
    assert.deepEqual(examples('/patients/{patient_id}/documents', 'post'), ['The document is larger than the limit of 10485760 bytes.']);
    assert.deepEqual(examples('/desk/commands', 'post'), [
      'The request body is larger than 1048576 bytes.',
      'The document is larger than the limit of 10485760 bytes.',
    ]);
    assert.equal(limited.paths['/patients/{patient_id}'].get.responses['413'], undefined, 'an operation without a body documents a 413');
  });

  it('documents on every operation the refusals any request may get: VERSION_UNSUPPORTED, a foreign Host or Origin', () => {
    for (const op of operations) {
      assert.deepEqual(codes(op.responses['400']).slice(0, 1), ['VERSION_UNSUPPORTED'], op.operationId);
      assert.deepEqual(codes(op.responses['403']).slice(-2), ['HOST_NOT_ALLOWED', 'ORIGIN_NOT_ALLOWED'], op.operationId);
    }
    assert.deepEqual(codes(operation('getPatient').responses['403']), [
      'FORBIDDEN',
      'ROLE_FORBIDDEN',
      'PATIENT_RESTRICTED',
      'HOST_NOT_ALLOWED',
      'ORIGIN_NOT_ALLOWED',
    ]);
    assert.deepEqual(codes(operation('endCurrentSession').responses['403']), [
      'ROLE_FORBIDDEN',
      'SESSION_REQUIRED',
      'HOST_NOT_ALLOWED',
      'ORIGIN_NOT_ALLOWED',
    ]);
  });

  it('gives as the 422 example what the validators really report for a typical mistake', () => {
    const example = (id: string) => operation(id).responses['422'].content['application/json'].examples.validation.value.detail;
    assert.deepEqual(
      example('createPatient').map((issue: Json) => [issue.type, issue.loc]),
      [
        ['missing', ['body', 'first_name']],
        ['missing', ['body', 'last_name']],
      ],
    );
    // A merge patch may leave out every field: it is refused only when it is no object.
    assert.deepEqual(
      example('updatePatient').map((issue: Json) => [issue.type, issue.loc]),
      [['model_attributes_type', ['body']]],
    );
    assert.deepEqual(
      example('listDoctors').map((issue: Json) => [issue.type, issue.loc]),
      [['bool_parsing', ['query', 'include_retired']]],
    );
    assert.deepEqual(
      example('getPatient').map((issue: Json) => [issue.type, issue.loc]),
      [['uuid_parsing', ['path', 'patient_id']]],
    );
    assert.equal(operation('getApiDescription').responses['422'], undefined, 'a static file documents a 422');
  });

  it('takes a merge patch as such or as plain JSON, an upload as multipart with its file, a desk command with or without files', () => {
    assert.deepEqual(Object.keys(operation('updatePatient').requestBody.content), ['application/json', 'application/merge-patch+json']);
    assert.deepEqual(Object.keys(operation('createPatient').requestBody.content), ['application/json']);
    const upload = operation('uploadDocument').requestBody.content['multipart/form-data'].schema;
    assert.deepEqual([upload.required, upload.properties.file.format, Object.keys(upload.properties)[0]], [['file'], 'binary', 'file']);
    const command = operation('runDeskCommand').requestBody.content;
    assert.deepEqual(Object.keys(command), ['application/json', 'multipart/form-data']);
    assert.deepEqual(command['multipart/form-data'].schema.required, ['command']);
    assert.deepEqual(Object.keys(command['multipart/form-data'].schema.properties), ['command', 'file', 'token-file']);
  });
});

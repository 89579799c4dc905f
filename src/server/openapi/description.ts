import { RESTRICTED_ID_FIELDS } from '../../domain/retention/restriction.js';
import { errors, type ValidationIssue } from '../../errors.js';
import { fieldsValidator } from '../../domain/validation/validate.js';
import type { FieldSpec } from '../../fields/field-spec.js';
import { MAX_HEADER_BYTES } from '../api/client-errors.js';
import { API_PREFIX, DEFAULT_JSON_BODY_LIMIT_BYTES, REQUEST_TIMEOUT_MS } from '../config.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../domain/documents/document-limit.js';
import { CLINIC_FAILED_KEYS_ALLOWED, FAILED_KEYS_ALLOWED, FAILED_KEYS_WINDOW_MS } from '../throttles/failed-key-throttle.js';
import { VERSION_INFO } from './info.js';
import { AUDITED_READS_PER_MINUTE } from '../throttles/audited-read-guard.js';
import { codedResponse, errorSchemas, headerComponents, headersObject, ref, unprocessableResponse } from './error-responses.js';
import { fieldSchema, objectSchema, type JsonSchema } from './field-schemas.js';
import { MODELS, type ModelName } from './models.js';
import { TAGS, type OperationSpec } from './operation-spec.js';
import { curlExample, headerName } from './curl-example.js';
import { parameterExample } from './examples.js';

/** The limits a running server enforces; only descriptions and examples mention them. */
export interface DescriptionLimits {
  jsonBodyLimitBytes: number;
  documentLimitBytes: number;
}

export type ApiDescription = Record<string, unknown> & { paths: Record<string, Record<string, JsonSchema>> };

/** A parameter's example text as a value of its schema's type. */
function exampleValue(schema: JsonSchema, example: string): unknown {
  if (schema.type === 'boolean') return example === 'true';
  if (schema.type === 'integer') return Number(example);
  return example;
}

function parameters(op: OperationSpec): JsonSchema[] {
  const from = (where: 'path' | 'query' | 'header', fields: readonly FieldSpec[] = []) =>
    fields.map((spec) => {
      const { description, ...schema } = fieldSchema(spec, 'request');
      const example = parameterExample(op.operationId, spec.name);
      return {
        name: where === 'header' ? headerName(spec.name) : spec.name,
        in: where,
        required: where === 'path' || spec.required === true,
        ...(description === undefined ? {} : { description }),
        schema,
        ...(example === undefined ? {} : { example: exampleValue(schema, example) }),
      };
    });
  return [
    ...from('path', op.pathFields),
    ...from('query', op.queryFields),
    ...from('header', op.headerFields),
    ...(op.scope === undefined && op.credentials !== 'session' ? [] : [AUTHORIZATION_PARAMETER]),
  ];
}

/**
 * Interface 1.0.0, section 5: every endpoint with a key declares `authorization` as an optional
 * header parameter, the two public lookups none. OpenAPI tools ignore a header parameter of this
 * name (the bearer security scheme is what they use); it is declared because the interface says so.
 */
const AUTHORIZATION_PARAMETER = {
  name: 'authorization',
  in: 'header',
  required: false,
  description: "`Bearer <API key>` with the key `clinic api-key create` printed; the same as this operation's bearer security scheme",
  schema: { type: 'string' },
};

function requestBody(op: OperationSpec): JsonSchema | undefined {
  const body = op.body;
  if (body === undefined) return undefined;
  if (body.kind === 'json') {
    const media = { schema: ref('schemas', body.model), examples: { example: { value: body.example } } };
    // A PATCH body is a JSON merge patch (RFC 7396), sent as such or as plain JSON.
    return {
      required: true,
      content: {
        'application/json': media,
        ...(op.method === 'patch' ? { 'application/merge-patch+json': media } : {}),
        ...(body.files === undefined
          ? {}
          : {
              'multipart/form-data': {
                schema: jsonWithFiles(body.model, body.files),
                examples: { example: { value: { command: JSON.stringify(body.example), [body.files[0]!]: '(the bytes of the file)' } } },
              },
            }),
      },
    };
  }
  const form = objectSchema(body.fields, 'request');
  const file = {
    type: 'string',
    format: 'binary',
    contentMediaType: 'application/octet-stream',
    description: 'The document: a form part with a file name',
  };
  const schema = { ...form, properties: { [body.file]: file, ...(form.properties as object) }, required: [body.file] };
  return { required: true, content: { 'multipart/form-data': { schema, examples: { example: { value: body.example } } } } };
}

/** The form of a JSON body sent with files: part `command` the JSON, each file a part of its own name. */
function jsonWithFiles(model: ModelName, files: readonly string[]): JsonSchema {
  const file = {
    type: 'string',
    format: 'binary',
    contentMediaType: 'application/octet-stream',
    description: 'A file, as a form part with a file name',
  };
  return {
    type: 'object',
    properties: {
      command: { type: 'string', contentMediaType: 'application/json', contentSchema: ref('schemas', model), description: 'The JSON body' },
      ...Object.fromEntries(files.map((name) => [name, file])),
    },
    required: ['command'],
  };
}

/** The issues the real validators report for a typical mistake, as the 422 example. */
function validationExample(op: OperationSpec): ValidationIssue[] {
  if (op.result.kind === 'static') return [];
  if (op.body?.kind === 'json') {
    // A body whose every field may be absent (a merge patch) is refused only when it is no object.
    const body = fieldsValidator(MODELS[op.body.model].fields, 'body');
    const missing = body.issues({});
    return missing.length > 0 ? missing : body.issues([]);
  }
  if (op.pathFields)
    return fieldsValidator(op.pathFields, 'path').issues(Object.fromEntries(op.pathFields.map((f) => [f.name, 'P-000001'])));
  if (op.queryFields)
    return fieldsValidator(op.queryFields, 'query').issues(Object.fromEntries(op.queryFields.map((f) => [f.name, 'yes'])));
  return [];
}

function successResponse(op: OperationSpec): [string, JsonSchema][] {
  const result = op.result;
  if (result.kind === 'static') {
    const content = Object.fromEntries(
      Object.entries(result.media).map(([type, schema], index) => [type, { schema, ...(index === 0 ? { example: result.example } : {}) }]),
    );
    return [
      ['200', { description: result.description, headers: headersObject(['ETag']), content }],
      ['304', { description: 'Not modified since the ETag sent as If-None-Match', headers: headersObject(['ETag']) }],
    ];
  }
  if (result.kind === 'empty') return [['204', { description: result.description }]];
  if (result.kind === 'download' && result.made !== undefined) {
    const made = { schema: { type: 'string', format: 'binary', contentMediaType: result.made.mediaType } };
    return [
      [
        '200',
        {
          description: result.description,
          headers: headersObject(['Content-Disposition']),
          content: { [result.made.mediaType]: { ...made, example: result.made.example } },
        },
      ],
    ];
  }
  if (result.kind === 'download') {
    const file = { schema: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' } };
    return [
      [
        '200',
        {
          description: `${result.description}. Content-Type is the type stored with it`,
          headers: headersObject(['ETag', 'Content-Disposition', 'Content-Length', 'X-Content-Type-Options']),
          content: { 'application/octet-stream': { ...file, example: '(the stored bytes)' }, '*/*': file },
        },
      ],
      ['304', { description: 'The If-None-Match sent names this ETag (whatever Cache-Control says)', headers: headersObject(['ETag']) }],
    ];
  }
  const schema = result.list || result.paged ? { type: 'array', items: ref('schemas', result.model) } : ref('schemas', result.model);
  const headers = { ...headersObject(result.paged ? ['Link'] : []), ...result.headers };
  return [
    [
      String(result.status),
      { description: result.description, headers, content: { 'application/json': { schema, example: result.example } } },
    ],
    ...(result.unavailable === undefined
      ? []
      : [
          [
            '503',
            {
              description: result.unavailable.description,
              headers,
              content: { 'application/json': { schema, example: result.unavailable.example } },
            },
          ] as [string, JsonSchema],
        ]),
  ];
}

/** Whether a request of `op` may name a patient or one of its records by id (its path, query or JSON body). */
function namesPatientRecords(op: OperationSpec): boolean {
  const bodyFields = op.body?.kind === 'json' ? MODELS[op.body.model].fields : [];
  const names = [...(op.pathFields ?? []), ...(op.queryFields ?? []), ...bodyFields].map((spec) => spec.name);
  return names.some((name) => (RESTRICTED_ID_FIELDS as readonly string[]).includes(name));
}

/** Every response `op` can give, derived from what it is (see OperationSpec). */
function responses(op: OperationSpec, limits: DescriptionLimits): Record<string, JsonSchema> {
  const refusals = op.refusals ?? [];
  const byStatus = (status: number) => refusals.filter((error) => error.status === status);
  const out: Record<string, JsonSchema> = Object.fromEntries(successResponse(op));
  if (op.credentials !== undefined) out['401'] = codedResponse([errors.unauthenticated(), ...byStatus(401)]);
  else if (op.scope) out['401'] = ref('responses', 'Unauthenticated');
  else if (byStatus(401).length > 0) out['401'] = codedResponse(byStatus(401));
  // Any request may name another host or come from another web page (clinic-api-1.2.md, "Network").
  out['403'] = codedResponse([
    ...(op.scope ? [errors.forbidden(op.scope)] : []),
    // A person's session is checked by the operation's roles (1.3.0).
    ...(op.scope || op.credentials === 'session' ? [errors.roleForbidden(['admin', 'billing'], ['reception'])] : []),
    ...(op.module ? [errors.moduleDisabled(op.module)] : []),
    // An erased patient's records, named by id (1.3.0, "Restriction").
    ...(namesPatientRecords(op) ? [errors.patientRestricted('P-000042', false)] : []),
    ...byStatus(403),
    errors.hostNotAllowed(),
    errors.originNotAllowed(),
  ]);
  // A desk PC sending a version this server does not serve (1.3.0, Clinic-Version), on any operation.
  out['400'] = codedResponse([errors.versionUnsupported('1.5.0', '1.3.0', ['1.2', '1.3', '1.4']), ...byStatus(400)]);
  for (const status of [404, 409, 412, 423]) if (byStatus(status).length > 0) out[String(status)] = codedResponse(byStatus(status));
  if (op.body?.kind === 'json') {
    out['413'] = codedResponse([errors.payloadTooLarge(limits.jsonBodyLimitBytes)]);
    out['415'] = codedResponse([errors.unsupportedMediaType('application/json')]);
    if (op.body.files !== undefined)
      out['413'] = codedResponse([errors.payloadTooLarge(limits.jsonBodyLimitBytes), errors.documentTooLarge(limits.documentLimitBytes)]);
  }
  if (op.body?.kind === 'multipart') {
    out['413'] = codedResponse([errors.documentTooLarge(limits.documentLimitBytes)]);
    out['415'] = codedResponse([errors.unsupportedMediaType('multipart/form-data')]);
  }
  const validation = validationExample(op);
  if (validation.length > 0 || byStatus(422).length > 0) out['422'] = unprocessableResponse(validation, byStatus(422));
  if (op.scope) out['503'] = ref('responses', 'DatabaseBusy');
  // Writes need room on the disk; so do reads that show patient data, for their audit events.
  if (op.method !== 'get') out['507'] = ref('responses', 'StorageFull');
  else if (op.recordsRead === true) out['507'] = ref('responses', 'ReadNotRecorded');
  // Any request may carry too many headers, or take too long to arrive; the server refuses it unread.
  out['408'] = ref('responses', 'RequestTimeout');
  // Any request from an address with too many failed keys; a keyed one also past its key's own limit.
  out['429'] = ref('responses', 'TooManyRequests');
  out['431'] = ref('responses', 'HeadersTooLarge');
  out['500'] = ref('responses', 'InternalError');
  return out;
}

/** Who may call `op`: a key of its scope; a desk PC's session (bearer and Clinic-Device); a desk PC alone; or anyone. */
function securityOf(op: OperationSpec): Record<string, string[]>[] {
  if (op.credentials === 'session') return [{ bearer: [], clinicDevice: [] }];
  if (op.credentials === 'device') return [{ clinicDevice: [] }];
  return op.scope ? [{ bearer: [op.scope] }] : [];
}

function operation(op: OperationSpec, limits: DescriptionLimits): JsonSchema {
  const body = requestBody(op);
  const params = parameters(op);
  const example = `Example request (\`API\` is this server's base URL, \`KEY\` an API key, ids as the introduction says):\n\n\`\`\`sh\n${curlExample(op)}\n\`\`\``;
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: [op.description, example].filter((part) => part !== undefined).join('\n\n'),
    tags: [op.tag],
    // OpenAPI 3.1 lets a non-OAuth scheme name the roles an operation needs: here the key's scope.
    security: securityOf(op),
    // Interface 1.3.0: the roles a person's session needs, from the same row the use case checks.
    'x-clinic-roles': [...op.roles],
    ...(params.length === 0 ? {} : { parameters: params }),
    ...(body === undefined ? {} : { requestBody: body }),
    responses: responses(op, limits),
  };
}

/** Shared responses: the ones every authenticated operation (or every request) may get. */
function responseComponents(): Record<string, JsonSchema> {
  return {
    Unauthenticated: codedResponse(
      [
        errors.unauthenticated(),
        errors.sessionEnded('idle'),
        errors.personDisabled(),
        errors.deviceUnknown(),
        errors.deviceRevoked('Reception 2'),
      ],
      "UNAUTHENTICATED: no valid `Authorization: Bearer <key>`; a desk PC's person (1.3.0): SESSION_ENDED, PERSON_DISABLED, DEVICE_UNKNOWN, DEVICE_REVOKED",
    ),
    DatabaseBusy: codedResponse([errors.databaseBusy()], 'DATABASE_BUSY: another process held the database; nothing was changed'),
    InternalError: codedResponse(
      [errors.internal(), errors.storageFailed()],
      'INTERNAL: an unexpected failure; STORAGE_FAILED: the disk or the database file failed (nothing was stored). Both are logged with the request id',
    ),
    StorageFull: codedResponse(
      [errors.storageFull()],
      'STORAGE_FULL: the disk of the data directory is full; nothing was stored. Retry once space is freed',
    ),
    ReadNotRecorded: codedResponse(
      [errors.readNotRecorded(true)],
      'STORAGE_FAILED: the audit event of this read could not be stored (the disk is full or failing, or has less than the room the server keeps for payments and changes, 256 MiB: then reads pause while writes go on), so nothing is shown. Retry once space is freed',
    ),
    HeadersTooLarge: codedResponse(
      [errors.headersTooLarge(MAX_HEADER_BYTES)],
      `HEADERS_TOO_LARGE: the request headers together exceed ${MAX_HEADER_BYTES / 1024} KiB (any path); the request was not read`,
    ),
    RequestTimeout: codedResponse(
      [errors.requestTimeout(REQUEST_TIMEOUT_MS / 1000)],
      `REQUEST_TIMEOUT: the request (headers and body) did not arrive in full within ${REQUEST_TIMEOUT_MS / 1000} s (any path); nothing of it was processed`,
    ),
    TooManyRequests: codedResponse(
      [errors.failedKeysBlocked(42_000)],
      `TOO_MANY_REQUESTS (any path): this client address had ${FAILED_KEYS_ALLOWED} answers 401 within ${FAILED_KEYS_WINDOW_MS / 1000} s, so every request from it is refused until ${FAILED_KEYS_WINDOW_MS / 1000} s after the last of them; or addresses together had ${CLINIC_FAILED_KEYS_ALLOWED} within ${FAILED_KEYS_WINDOW_MS / 1000} s, so an address that used no valid key within the last hour is refused until ${FAILED_KEYS_WINDOW_MS / 1000} s after the last of them (the PC's own 127.0.0.1 and ::1 never are); or, on an operation that takes a key, the key's own limit of requests per clock minute (\`clinic api-key create --rate-limit N\`) is spent until the minute ends; or, on a read that shows patient data with a key without such a limit, the key's reads have recorded ${AUDITED_READS_PER_MINUTE} audit events (one per patient shown) this clock minute. \`Retry-After\` gives the seconds to wait`,
    ),
    NotFound: codedResponse([errors.notFound()], 'NOT_FOUND: no such path (any path not in this document)'),
    MethodNotAllowed: codedResponse([errors.methodNotAllowed(['GET'])], 'METHOD_NOT_ALLOWED: a path of this document with another method'),
  };
}

/**
 * The OpenAPI 3.1 document of `operations` (the app's own, src/server/api/api-operations.ts), built from
 * their declarations and the field descriptions. Built once when the app starts, never per request.
 */
export function buildApiDescription(
  operations: readonly OperationSpec[],
  limits: DescriptionLimits = { jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES, documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES },
): ApiDescription {
  const paths: ApiDescription['paths'] = {};
  for (const op of operations) paths[op.path] = { ...paths[op.path], [op.method]: operation(op, limits) };
  const models = Object.entries(MODELS).map(([name, model]) => [
    name,
    { ...objectSchema(model.fields, model.direction), description: model.description },
  ]);
  return {
    openapi: '3.1.0',
    info: VERSION_INFO,
    servers: [{ url: API_PREFIX, description: 'This server' }],
    tags: TAGS.map((tag) => ({ ...tag })),
    paths,
    components: {
      schemas: { ...Object.fromEntries(models), ...errorSchemas() },
      responses: responseComponents(),
      headers: headerComponents(),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key from `clinic api-key create`' },
        clinicDevice: {
          type: 'apiKey',
          in: 'header',
          name: 'Clinic-Device',
          description:
            "A desk PC's token (`cld_…`, from POST /desk/join), sent with its person's session (`Bearer cls_…`, from POST /sessions)",
        },
      },
    },
  };
}

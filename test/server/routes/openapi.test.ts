import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { SCOPES, type Scope } from '../../../src/domain/api-keys.js';
import { fieldsValidator } from '../../../src/domain/validation/validate.js';
import { createApp } from '../../../src/server/api/app.js';
import { PATIENT_INPUT_FIELDS } from '../../../src/fields/patient-fields.js';
import { operationsRouter } from '../../../src/server/api/mount-operations.js';
import { API_PREFIX, DEFAULT_JSON_BODY_LIMIT_BYTES } from '../../../src/server/config.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../../src/domain/documents/document-limit.js';
import { silentLogger } from '../../../src/logger.js';
import { fieldsIn } from '../../../src/server/openapi/field-schemas.js';
import { MODELS } from '../../../src/server/openapi/models.js';
import { OPERATIONS } from '../../../src/server/api/api-operations.js';
import { PAYMENT_RESULT_KEYS, REQUIRED_APPOINTMENT_KEYS } from '../../helpers/api-shapes.js';
import { buildPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { CommitGroups } from '../../../src/server/writes/commit-groups.js';
import { ChangeWatch } from '../../../src/server/writes/change-watch.js';
import { AuditedReadGuard } from '../../../src/server/throttles/audited-read-guard.js';
import { KeyRateLimits } from '../../../src/server/throttles/key-rate-limits.js';

type Json = Record<string, any>;

/** The operations that need no key (decisions.md §2, and the description itself). */
const PUBLIC = [
  'GET /document-types',
  'GET /payment-methods',
  'GET /openapi.json',
  'GET /docs',
  'GET /docs/{asset}',
  'GET /health',
  'POST /desk/join',
];
/** A desk PC's operations (1.3.0): a session or the PC's token, never a key's scope. */
const DESK_PC = ['POST /sessions', 'GET /sessions/current', 'DELETE /sessions/current', 'POST /desk/commands'];

describe('GET /openapi.json', () => {
  let server: TestServer;
  let document: Json;

  before(async () => {
    server = await startTestServer();
    document = (await server.request('GET', '/openapi.json', { key: null })).body;
  });
  after(() => server.close());

  const operations = () =>
    Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Json })),
    );

  it('serves an OpenAPI 3.1 document of version 1.1.0 without a key', async () => {
    const response = await server.request('GET', '/openapi.json', { key: null });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.match(document.openapi, /^3\.1\./);
    assert.equal(document.info.version, '1.3.0');
    assert.deepEqual(document.servers, [{ url: API_PREFIX, description: 'This server' }]);
  });

  it('describes every route the app registers, and no other', () => {
    const config = {
      dataDir: server.dataDir,
      jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
      documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
      logger: silentLogger,
    };
    const routes = [
      operationsRouter({
        db: server.db,
        commits: new CommitGroups(server.db),
        config,
        operations: OPERATIONS,
        changes: new ChangeWatch(server.db),
        startedAt: new Date().toISOString(),
        keyLimits: new KeyRateLimits(),
        auditedReads: new AuditedReadGuard(server.dataDir, silentLogger),
      }),
    ].flatMap((router) =>
      router.stack.flatMap((layer) =>
        layer.methods
          .filter((method) => method !== 'HEAD')
          .map(
            (method) =>
              `${method} ${String(layer.path)
                .slice(API_PREFIX.length)
                .replace(/:(\w+)/g, '{$1}')}`,
          ),
      ),
    );
    assert.deepEqual(
      [...routes].sort(),
      operations()
        .map((o) => o.key)
        .sort(),
    );
  });

  it('serves the scope each operation documents: a key without it is refused 403, a key with only it gets past', async () => {
    for (const { key, op } of operations()) {
      const [method, template] = key.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'asset' ? 'init.js' : randomUUID()));
      if (PUBLIC.includes(key)) {
        assert.deepEqual(op.security, [], key);
        // Joining a desk PC takes no key but a pairing code, refused 401 like a wrong key.
        if (key !== 'POST /desk/join') assert.equal(op.responses['401'], undefined, key);
        assert.notEqual((await server.request(method, path, { key: null })).status, 401, key);
        continue;
      }
      if (DESK_PC.includes(key)) {
        assert.ok(op.security[0].clinicDevice !== undefined, key);
        assert.equal((await server.request(method, path, { key: null })).status, 401, key);
        continue;
      }
      const [scope] = op.security[0].bearer as [Scope];
      assert.deepEqual(op.responses['401'], { $ref: '#/components/responses/Unauthenticated' }, key);
      const body = method === 'POST' ? { body: {} } : {};
      const without = await server.request(method, path, { key: server.createKey(SCOPES.filter((s) => s !== scope)), ...body });
      assert.equal(without.status, 403, key);
      assert.deepEqual(without.body.detail.code, 'FORBIDDEN', key);
      const only = await server.request(method, path, { key: server.createKey([scope]), ...body });
      assert.ok(![401, 403].includes(only.status), `${key} with only ${scope}: ${only.status}`);
    }
    assert.deepEqual(document.components.securitySchemes.bearer, {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key from `clinic api-key create`',
    });
  });

  it('changes the served scope and the documented one together when a declaration changes', async () => {
    const changed = OPERATIONS.map((op) => (op.operationId === 'createPatient' ? { ...op, scope: 'lookups:read' as const } : op));
    const config = {
      dataDir: server.dataDir,
      jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
      documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
      logger: silentLogger,
    };
    const handle = createApp(server.db, new CommitGroups(server.db), config, changed).callback();
    const http = createServer((request, response) => void handle(request, response));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}${API_PREFIX}`;
      const described = (await (await fetch(`${base}/openapi.json`)).json()) as Json;
      assert.deepEqual(described.paths['/patients'].post.security, [{ bearer: ['lookups:read'] }]);
      const post = (key: string) =>
        fetch(`${base}/patients`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(buildPatient()),
        });
      assert.equal((await post(server.createKey(['patients:write']))).status, 403);
      assert.equal((await post(server.createKey(['lookups:read']))).status, 201);
    } finally {
      http.close();
    }
  });

  it('lists every code the error factories of src/errors.ts produce', () => {
    const source = readFileSync(new URL('../../../src/errors.ts', import.meta.url), 'utf8');
    const codes = [...source.matchAll(/new AppError\(\s*[\w|. ]+,\s*'([A-Z_]+)'/g)].map((m) => m[1]);
    assert.ok(codes.length >= 20, `found ${codes.length} codes in errors.ts`);
    assert.deepEqual([...document.components.schemas.ErrorCode.enum].sort(), [...new Set(codes)].sort());
  });

  it('describes what integrators generate clients from plainly: no dialect, loc a plain list, ctx open, money without a minus, read-only marked', () => {
    assert.equal(document.jsonSchemaDialect, undefined);
    const item = document.components.schemas.ValidationError.properties;
    assert.deepEqual(item.loc.items, { type: ['string', 'integer'] });
    assert.equal(item.loc.prefixItems, undefined);
    assert.equal(item.ctx.additionalProperties, true);
    const amount = new RegExp(document.components.schemas.PaymentRequest.properties.amount.pattern);
    assert.deepEqual(
      ['20.50', '1.500', '+7', '.5', '99999999.99'].filter((t) => !amount.test(t)),
      [],
    );
    assert.deepEqual(
      ['-5', '123456789', '0.001', '1e3', ''].filter((t) => amount.test(t)),
      [],
    );
    assert.equal(document.components.schemas.Appointment.properties.confirmation_state.readOnly, true);
    assert.doesNotMatch(document.components.schemas.Invoice.properties.total.description ?? '', /string/);
  });

  it('marks required every response field the specification requires (its own lists, not the field descriptions)', () => {
    const patientExtras = ['id', 'patient_number', 'is_active', 'created_at', 'updated_at'];
    const required: Record<string, string[]> = {
      Patient: ['first_name', 'last_name', ...patientExtras],
      Appointment: [...REQUIRED_APPOINTMENT_KEYS, 'confirmation_state'],
      Service: ['id', 'name', 'duration_min', 'price', 'color'],
      Doctor: ['id', 'name', 'color'],
      Invoice: ['id', 'invoice_number', 'patient_id', 'status', 'currency', 'total', 'amount_paid', 'balance', 'issued_at'],
      PaymentResult: PAYMENT_RESULT_KEYS,
      Document: ['id', 'filename', 'content_type', 'size', 'created_at', 'type'],
      DocumentType: ['key', 'label'],
      PaymentMethod: ['key', 'requires_note'],
    };
    for (const [model, fields] of Object.entries(required)) {
      const missing = fields.filter((name) => !(document.components.schemas[model].required as string[]).includes(name));
      assert.deepEqual(missing, [], model);
    }
  });

  it("derives every schema's fields, types and limits from the field descriptions", () => {
    for (const [name, model] of Object.entries(MODELS)) {
      const schema = document.components.schemas[name];
      const fields = fieldsIn(model.fields, model.direction);
      assert.deepEqual(
        Object.keys(schema.properties),
        fields.map((f) => f.name),
        name,
      );
      if (model.direction === 'response') {
        assert.equal(schema.additionalProperties, false, name);
        assert.deepEqual(
          schema.required,
          fields.map((f) => f.name),
          name,
        );
      }
    }
    const patient = document.components.schemas.PatientInput;
    assert.deepEqual(patient.required, ['first_name', 'last_name']);
    assert.deepEqual(patient.properties.first_name, { type: 'string', minLength: 1, maxLength: 128 });
    assert.deepEqual(patient.properties.avatar, { type: ['string', 'null'], maxLength: 2_000_000 });
    // A request says its defaults in words, so that a generated client need not send them.
    assert.deepEqual(patient.properties.visit_address_same_as_main, { type: 'boolean', description: 'Default: true' });
    assert.equal(patient.properties.discount_percent.default, undefined);
    assert.match(patient.properties.discount_percent.description, /Default: "0"/);
    assert.deepEqual(patient.properties.discount_percent.type, ['number', 'string']);
    assert.equal(document.components.schemas.Patient.properties.discount_percent.type, 'string');
    assert.equal(document.components.schemas.Patient.properties.link_existing_portal_user, undefined);
    assert.equal(document.components.schemas.Invoice.properties.total.type, 'number');
    assert.deepEqual(document.components.schemas.PaymentRequest.properties.method.enum, ['cash', 'card', 'bank', 'other']);
    assert.equal(document.components.schemas.PaymentRequest.properties.note.maxLength, 500);
  });

  it('describes the upload as multipart with `file` as binary, and Idempotency-Key as a header', () => {
    const upload = document.paths['/patients/{patient_id}/documents'].post;
    const form = upload.requestBody.content['multipart/form-data'].schema;
    assert.deepEqual(form.required, ['file']);
    assert.equal(form.properties.file.format, 'binary');
    assert.deepEqual(Object.keys(form.properties), ['file', 'title', 'type']);
    const payment = document.paths['/invoices/{invoice_id}/payments'].post;
    assert.deepEqual(
      payment.parameters.map((p: Json) => [p.in, p.name, p.required]),
      [
        ['path', 'invoice_id', true],
        ['header', 'Idempotency-Key', false],
        ['header', 'authorization', false],
      ],
    );
    assert.ok(payment.responses['200'].headers['Idempotent-Replayed']);
    assert.equal(payment.responses['201'], undefined);
  });

  it('declares the authorization header optional on every endpoint of the interface but the two public lookups (section 5)', () => {
    const declaring: string[] = [];
    for (const { key, op } of operations()) {
      const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.name.toLowerCase() === 'authorization');
      const takesKey = ((op.security ?? []) as Json[]).some((scheme) => scheme.bearer !== undefined);
      assert.deepEqual(
        declared.map((p) => [p.in, p.name, p.required, p.schema.type]),
        takesKey ? [['header', 'authorization', false, 'string']] : [],
        key,
      );
      if (takesKey) declaring.push(key);
    }
    // Every endpoint of the interfaces but the two lookups (the description and docs page are not part of them).
    const keyed = OPERATIONS.filter((op) => op.scope !== undefined || op.credentials === 'session').map(
      (op) => `${op.method.toUpperCase()} ${op.path}`,
    );
    assert.deepEqual(declaring.sort(), keyed.sort());
    assert.ok(declaring.length >= 14, 'the 14 endpoints of 1.0.0 and 1.1.0 at least');
    assert.ok(!declaring.includes('GET /document-types') && !declaring.includes('GET /payment-methods'));
  });

  it('gives every operation an example request (curl) and response, and every request body an example the validators accept', () => {
    for (const { key, op } of operations()) {
      const [, success] = Object.entries(op.responses as Json).find(([status]) => status.startsWith('2'))!;
      if (success.content !== undefined) {
        const media = Object.values(success.content as Json)[0];
        assert.ok(media.example !== undefined, `${key}: no example response`);
      } else assert.ok(op.responses['204'] !== undefined, `${key}: no example response`);
      assert.match(op.description, /```sh\ncurl -s( -X [A-Z]+)?( -o \S+)? "\$API\//, `${key}: no example request`);
      for (const [type, content] of Object.entries((op.requestBody?.content ?? {}) as Json)) {
        assert.ok(content.examples?.example?.value, `${key}: no example request (${type})`);
      }
    }
    const patient = document.paths['/patients'].post.requestBody.content['application/json'].examples.example.value;
    assert.deepEqual(fieldsValidator(PATIENT_INPUT_FIELDS, 'body').issues(patient), []);
  });

  it('documents each refusal with its status and codes, 503 where a key is read, 408, 429, 431 and 500 everywhere', () => {
    const codes = (response: Json) => {
      const resolved = response.$ref ? document.components.responses[response.$ref.split('/').pop()] : response;
      const schema = resolved.content['application/json'].schema;
      const variants = schema.oneOf ?? [schema];
      return variants.flatMap((s: Json) => s.properties?.detail?.properties?.code?.enum ?? []);
    };
    const appointments = document.paths['/appointments'].post.responses;
    assert.deepEqual(Object.keys(appointments).sort(), [
      '201',
      '400',
      '401',
      '403',
      '408',
      '409',
      '413',
      '415',
      '422',
      '429',
      '431',
      '500',
      '503',
      '507',
    ]);
    assert.deepEqual(codes(appointments['507']), ['STORAGE_FULL']);
    assert.deepEqual(codes(appointments['500']), ['INTERNAL', 'STORAGE_FAILED']);
    // A lookup is answered on a full disk; a read of patient data must store its audit event first.
    assert.equal(document.paths['/doctors'].get.responses['507'], undefined, 'a lookup is answered on a full disk');
    assert.deepEqual(document.paths['/invoices'].get.responses['507'], { $ref: '#/components/responses/ReadNotRecorded' });
    assert.deepEqual(codes(document.paths['/invoices'].get.responses['507']), ['STORAGE_FAILED']);
    assert.deepEqual(codes(appointments['422']), [
      'PATIENT_NOT_FOUND',
      'DOCTOR_NOT_FOUND',
      'SERVICE_NOT_FOUND',
      'DOCTOR_RETIRED',
      'SERVICE_RETIRED',
      'IDEMPOTENCY_KEY_REUSED',
    ]);
    const upload = document.paths['/patients/{patient_id}/documents'].post.responses;
    assert.deepEqual(codes(upload['404']), ['PATIENT_NOT_FOUND']);
    assert.deepEqual(codes(upload['413']), ['DOCUMENT_TOO_LARGE']);
    assert.deepEqual(codes(upload['422']), ['DOCUMENT_TYPE_INVALID', 'DOCUMENT_EMPTY', 'IDEMPOTENCY_KEY_REUSED']);
    const invoices = document.paths['/invoices'].get.responses;
    // GET /invoices?patient_id= may name an erased patient (1.3.0).
    assert.deepEqual(codes(invoices['403']), [
      'FORBIDDEN',
      'ROLE_FORBIDDEN',
      'MODULE_DISABLED',
      'PATIENT_RESTRICTED',
      'HOST_NOT_ALLOWED',
      'ORIGIN_NOT_ALLOWED',
    ]);
    assert.deepEqual(codes(document.paths['/doctors'].get.responses['403']), [
      'FORBIDDEN',
      'ROLE_FORBIDDEN',
      'HOST_NOT_ALLOWED',
      'ORIGIN_NOT_ALLOWED',
    ]);
    assert.deepEqual(invoices['422'].content['application/json'].schema, { $ref: '#/components/schemas/HTTPValidationError' });
    assert.deepEqual(codes(document.paths['/doctors'].get.responses['503']), ['DATABASE_BUSY']);
    assert.equal(document.components.headers['Retry-After'].required, true);
    assert.deepEqual(Object.keys(document.paths['/document-types'].get.responses), ['200', '400', '403', '408', '429', '431', '500']);
    assert.deepEqual(codes(document.paths['/document-types'].get.responses['403']), ['HOST_NOT_ALLOWED', 'ORIGIN_NOT_ALLOWED']);
    assert.deepEqual(codes(appointments['408']), ['REQUEST_TIMEOUT']);
    // Failed keys block an address on every path; a key's own limit, on the keyed ones.
    assert.deepEqual(codes(appointments['429']), ['TOO_MANY_REQUESTS']);
    assert.deepEqual(document.paths['/document-types'].get.responses['429'], { $ref: '#/components/responses/TooManyRequests' });
    assert.deepEqual(Object.keys(document.components.responses.TooManyRequests.headers).sort(), ['Retry-After', 'X-Request-Id']);
  });

  // Last of this server's tests: the lint keeps the process busy for seconds, in which the server's
  // keep-alive timer expires unseen and would close a kept connection under the next request's feet.
  it('passes the Redocly recommended-strict rules, examples checked against their schemas', async () => {
    const config = await createConfig({
      extends: ['recommended-strict'],
      rules: {
        // The package is UNLICENSED: there is no licence to name.
        'info-license': 'off',
        // The public lookups and the description itself can only succeed (or fail with a 500).
        'operation-4xx-response': 'off',
        // NotFound and MethodNotAllowed describe requests outside every operation (see info.description).
        'no-unused-components': 'off',
      },
    });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config });
    assert.deepEqual(
      problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      [],
    );
  });
});

describe('the description and docs page files', () => {
  const server = useTestServer();

  it('answers a current If-None-Match with 304 and no body', async () => {
    for (const path of ['/openapi.json', '/docs', '/docs/swagger-ui-bundle.js']) {
      const first = await server.request('GET', path, { key: null });
      const etag = first.headers.get('etag')!;
      assert.equal(first.headers.get('cache-control'), 'no-cache', path);
      // A browser revalidating its copy; fetch() would add `Cache-Control: no-cache`, which must
      // not matter either (RFC 9110 §13.1.2; the download test sends it).
      const again = await server.request('GET', path, { key: null, headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
      assert.equal(again.status, 304, path);
      assert.equal(again.text, '');
    }
  });

  it('serves the page and its files with their content types, forbidding anything from elsewhere', async () => {
    const page = await server.request('GET', '/docs', { key: null });
    assert.match(page.headers.get('content-type')!, /^text\/html; charset=utf-8/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'; script-src 'self'/);
    const scripts = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((url) => url !== 'data:,');
    assert.deepEqual(scripts, [
      `${API_PREFIX}/docs/swagger-ui.css`,
      `${API_PREFIX}/docs/swagger-ui-bundle.js`,
      `${API_PREFIX}/docs/init.js`,
    ]);
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/ };
    for (const url of scripts) {
      const response = await server.request('GET', url.slice(API_PREFIX.length), { key: null });
      assert.equal(response.status, 200, url);
      assert.match(response.headers.get('content-type')!, types[url.split('.').pop()!]!, url);
    }
    const init = await server.request('GET', '/docs/init.js', { key: null });
    assert.match(init.text, /validatorUrl: null/);
  });

  it('answers an unknown docs file with 404 NOT_FOUND', async () => {
    const response = await server.request('GET', '/docs/../../schema.sql', { key: null });
    assert.equal(response.status, 404);
    const unknown = await server.request('GET', '/docs/package.json', { key: null });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.detail.code, 'NOT_FOUND');
  });
});

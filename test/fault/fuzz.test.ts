import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { afterEach, before, beforeEach, describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import { addDoctor, addService } from '../../src/domain/catalog.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import {
  assertAppointment,
  assertDocument,
  assertErrorBody,
  assertInvoiceList,
  assertPatient,
  assertPaymentResult,
} from '../helpers/api-shapes.js';
import { buildPatient } from '../helpers/builders.js';
import { multipartBody, type FormPart } from '../helpers/multipart.js';
import { rawRequest, type RawRequest, type RawResponse } from '../helpers/raw-request.js';
import { useTestServer } from '../helpers/fixtures.js';

// Property-based tests: generated bodies, query strings, headers, paths and multipart forms sent
// to every endpoint. Whatever arrives, the answer is never a 5xx, always JSON of a documented
// shape, and a refused request writes no row and no file. Each property runs a bounded number
// of requests (RUNS; FUZZ_RUNS=5000 for a longer hunt), so the file stays well under a minute.

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
// fast-check prints the seed of a failing run; TEST_SEED=<seed> replays it.
const FC_OPTIONS = { numRuns: RUNS, ...(process.env.TEST_SEED ? { seed: Number(process.env.TEST_SEED) } : {}) };

// ---- generators ---------------------------------------------------------------------------

/** Values that probe the validators' edges: odd dates, numerals, blanks, ids, and any JSON. */
const EDGE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a'.repeat(129),
  'ü',
  '2025-02-30',
  '2026-12-01',
  '2026-12-01T09:00',
  '2026-12-01T09:00:00+14:00',
  '0000-01-01T00:00Z',
  '9999-12-31T23:59:59.999Z',
  '1e3',
  '-0',
  '.5',
  '5.',
  '+7',
  '00012.50',
  '99999999.99',
  '100000000',
  '0.001',
  'NaN',
  'Infinity',
  'true',
  '1',
  'cash',
  'other',
  'xrays',
  'a@b',
  '00000000-0000-4000-8000-000000000000',
  'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA',
];
const scalar = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...EDGE_STRINGS),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof({ weight: 5, arbitrary: scalar }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });

/**
 * A JSON body near a valid one: the valid body with some fields dropped and some set to generated
 * values (so that requests get past the first check), or any JSON value at all.
 */
function nearlyValid(
  valid: Record<string, unknown>,
  fields: readonly string[],
  extra: fc.Arbitrary<unknown> = value,
): fc.Arbitrary<unknown> {
  const changed = fc
    .tuple(
      fc.dictionary(fc.constantFrom(...fields, 'unknown_field'), fc.oneof(value, extra), { minKeys: 1, maxKeys: 3 }),
      fc.subarray([...fields], { maxLength: 2 }),
    )
    .map(([overrides, dropped]) => {
      const body: Record<string, unknown> = { ...valid, ...overrides };
      for (const name of dropped) delete body[name];
      return body;
    });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(valid) },
    { weight: 5, arbitrary: changed },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );
}

/** Characters node:http lets into a header value: tab, printable ASCII and Latin-1. */
const headerValue = fc.string({ unit: 'binary-ascii', maxLength: 300 }).map((text) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, ''));

const jsonContentType = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/vnd.clinic+json',
      'APPLICATION/JSON',
      undefined,
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      ';;',
      'application/json, text/plain',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

/** Path segments: real ids, ids in capitals, unknown ids, and junk, percent-encoded or raw. */
function idSegment(real: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...real) },
    { weight: 1, arbitrary: fc.constantFrom(...real).map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%E0%A4%A', '%zz', '..', '%2e%2e', '%2F', '%00', 'x'.repeat(300), '%C0%AF') },
  );
}

// ---- the server and what it stores ------------------------------------------------------

describe('fuzzed requests to every endpoint', { timeout: 120_000 }, () => {
  const server = useTestServer();
  let patientIds: string[];
  let doctorId: string;
  let serviceId: string;
  let invoiceIds: string[];
  let narrowKey: string;

  before(async () => {
    patientIds = [createPatient(server.db, buildPatient()).id, createPatient(server.db, buildPatient({ email: 'b@example.org' })).id];
    doctorId = addDoctor(server.db, { name: 'Dr. Fuzz', color: '#abcdef' }).id;
    serviceId = addService(server.db, { name: 'Check-up', duration_min: 30, price: 80, color: '#00ff00' }).id;
    invoiceIds = [
      createInvoice(server.db, { patient_id: patientIds[0], total: '99999999.99' }).id,
      createInvoice(server.db, { patient_id: patientIds[1], total: '25.00' }).id,
    ];
    narrowKey = server.createKey(['lookups:read']);
  });

  /** How often each status was answered in the current test, reported as a diagnostic. */
  const statuses = new Map<number, number>();
  beforeEach(() => statuses.clear());
  afterEach((t) =>
    (t as TestContext).diagnostic(
      `answers: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${n}× ${status}`)
        .join(', ')}`,
    ),
  );

  /** The authorization headers requests carry: mostly the full key, sometimes a wrong one. */
  const authorization = () =>
    fc.oneof(
      { weight: 18, arbitrary: fc.constant(`Bearer ${server.key}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(`bearer ${server.key}`, `Bearer ${narrowKey}`, `Bearer ${server.key}x`, 'Bearer', 'Basic YTpi', ''),
      },
      { weight: 1, arbitrary: headerValue },
    );

  /** Every count and file that a request could change. */
  function snapshot(): Record<string, unknown> {
    const count = (table: string) => (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const files = (dir: string) => {
      try {
        return readdirSync(join(server.dataDir, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
      } catch {
        return 0;
      }
    };
    return {
      patients: count('patients'),
      appointments: count('appointments'),
      appointment_services: count('appointment_services'),
      payments: count('payments'),
      documents: count('documents'),
      notification_outbox: count('notification_outbox'),
      api_keys: count('api_keys'),
      settings: count('settings'),
      amount_paid_cents: (server.db.prepare('SELECT sum(amount_paid_cents) AS n FROM invoices').get() as { n: number }).n,
      document_files: files('documents'),
      temp_files: files('tmp'),
    };
  }

  /**
   * Sends `sent`, then asserts the contract: below 500, a JSON body (unless HEAD), an error in a
   * documented shape, a success checked by `success`, and for a refusal no change at all.
   */
  async function check(
    sent: RawRequest,
    success: (response: RawResponse, body: any, before: Record<string, unknown>, after: Record<string, unknown>) => void,
  ): Promise<void> {
    const before = snapshot();
    const response = await rawRequest(server.baseUrl, sent);
    const after = snapshot();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const what = `${sent.method} ${sent.path} → ${response.status} ${response.text.slice(0, 300)}`;
    assert.ok(response.status >= 200 && response.status < 500, what);
    if (sent.method === 'HEAD') return;
    assert.match(String(response.headers['content-type']), /^application\/json/, what);
    const body = JSON.parse(response.text) as unknown;
    if (response.status >= 300) {
      assertErrorBody(response.status, body);
      assert.deepEqual(after, before, `a refused request changed something: ${what}`);
    } else {
      success(response, body, before, after);
    }
  }

  /** A success that added `added` rows or files, and changed nothing else. */
  const grew =
    (added: Record<string, number>) => (_r: RawResponse, _b: unknown, before: Record<string, unknown>, after: Record<string, unknown>) => {
      const expected = { ...before };
      for (const [name, n] of Object.entries(added)) expected[name] = (before[name] as number) + n;
      for (const name of ['amount_paid_cents', 'notification_outbox', 'appointment_services'])
        if (!(name in added)) expected[name] = after[name];
      assert.deepEqual(after, expected);
    };

  const jsonRequest = (
    method: string,
    path: string,
    body: unknown,
    headers: OutgoingHttpHeaders,
    raw: string | Uint8Array | undefined,
  ): RawRequest => ({
    method,
    path,
    headers,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });

  /** Raw bodies instead of JSON now and then: bytes, text, JSON cut short. */
  const rawBody = fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)),
      ),
    },
  );

  function headersWith(contentType: string | undefined, auth: string, extra: Record<string, string | undefined>): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = { authorization: auth };
    if (contentType !== undefined) headers['content-type'] = contentType;
    for (const [name, text] of Object.entries(extra)) if (text !== undefined) headers[name] = text;
    return headers;
  }

  it('POST /patients', async () => {
    const fields = [
      'first_name',
      'last_name',
      'email',
      'mobile',
      'date_of_birth',
      'gdpr_consent',
      'discount_percent',
      'portal_access',
      'communication_prefs',
      'address_country',
      'recall_contact_count',
      'insurer_id',
    ];
    await fc.assert(
      fc.asyncProperty(
        nearlyValid(buildPatient(), fields),
        jsonContentType,
        authorization(),
        rawBody,
        fc.option(headerValue),
        async (body, type, auth, raw, requestId) => {
          await check(
            jsonRequest('POST', '/patients', body, headersWith(type, auth, { 'x-request-id': requestId ?? undefined }), raw),
            (response, created, ...rest) => {
              assert.equal(response.status, 201);
              assertPatient(created);
              grew({ patients: 1 })(response, created, ...rest);
            },
          );
        },
      ),
      FC_OPTIONS,
    );
  });

  it('POST /appointments', async () => {
    const ids = fc.constantFrom(...patientIds, doctorId, serviceId, '00000000-0000-4000-8000-000000000000', patientIds[0]!.toUpperCase());
    const valid = {
      patient_id: patientIds[0],
      resource_id: doctorId,
      service_id: serviceId,
      start_at: '2026-12-01T09:00',
      end_at: '2026-12-01T09:30',
      title: 'Check-up',
    };
    const fields = ['patient_id', 'resource_id', 'service_id', 'service_ids', 'start_at', 'end_at', 'title', 'status', 'color', 'notes'];
    await fc.assert(
      fc.asyncProperty(
        nearlyValid(valid, fields, fc.oneof(ids, fc.array(ids, { maxLength: 3 }))),
        jsonContentType,
        authorization(),
        rawBody,
        async (body, type, auth, raw) => {
          await check(jsonRequest('POST', '/appointments', body, headersWith(type, auth, {}), raw), (response, created, ...rest) => {
            assert.equal(response.status, 201);
            assertAppointment(created);
            grew({ appointments: 1, appointment_services: created.service_ids.length })(response, created, ...rest);
          });
        },
      ),
      FC_OPTIONS,
    );
  });

  it('POST /invoices/{invoice_id}/payments', async () => {
    const valid = { amount: '0.01', method: 'card', note: null };
    const key = fc.option(fc.oneof(fc.constantFrom('fuzz-1', 'fuzz-2', '', ' ', 'k'.repeat(256)), headerValue, fc.uuid()), { freq: 2 });
    await fc.assert(
      fc.asyncProperty(
        idSegment(invoiceIds),
        nearlyValid(valid, ['amount', 'method', 'note']),
        jsonContentType,
        authorization(),
        rawBody,
        key,
        async (id, body, type, auth, raw, idempotencyKey) => {
          const sent = jsonRequest(
            'POST',
            `/invoices/${id}/payments`,
            body,
            headersWith(type, auth, { 'idempotency-key': idempotencyKey ?? undefined }),
            raw,
          );
          await check(sent, (response, result, before, after) => {
            assert.equal(response.status, 200);
            assertPaymentResult(result);
            const replayed = response.headers['idempotent-replayed'] === 'true';
            assert.deepEqual(
              { ...after, amount_paid_cents: 0, notification_outbox: 0 },
              { ...before, payments: (before.payments as number) + (replayed ? 0 : 1), amount_paid_cents: 0, notification_outbox: 0 },
            );
          });
        },
      ),
      FC_OPTIONS,
    );
  });

  it('GET /invoices with generated query strings', async () => {
    const name = fc.oneof(fc.constantFrom('patient_id', 'unpaid', 'patient_id', 'unpaid', 'page', ''), fc.string({ maxLength: 10 }));
    const text = fc.oneof(
      fc.constantFrom(...patientIds, 'true', 'false', '1', '0', '', 'TRUE', 'yes'),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    const pair = fc
      .tuple(name, text, fc.boolean())
      .map(([n, v, encode]) =>
        encode
          ? `${encodeURIComponent(n)}=${encodeURIComponent(v)}`
          : `${n.replace(/[^!-~]/g, '')}=${v.replace(/[^!-~]/g, '')}`.replace(/#/g, ''),
      );
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { maxLength: 4 }), authorization(), async (pairs, auth) => {
        await check({ method: 'GET', path: `/invoices?${pairs.join('&')}`, headers: { authorization: auth } }, (response, list) => {
          assert.equal(response.status, 200);
          assertInvoiceList(list);
        });
      }),
      FC_OPTIONS,
    );
  });

  it('POST /patients/{patient_id}/documents with generated multipart forms', async () => {
    const part: fc.Arbitrary<FormPart> = fc.record(
      {
        name: fc.oneof(
          fc.constantFrom('file', 'file', 'type', 'title', 'other'),
          fc.string({ maxLength: 8 }).map((n) => n.replace(/["\r\n]/g, '')),
        ),
        filename: fc.oneof(
          fc.constantFrom('scan.pdf', '../../etc/passwd', '', 'a\u202Eb.pdf'),
          fc.string({ unit: 'grapheme', maxLength: 20 }).map((n) => n.replace(/["\r\n]/g, '')),
          // Control characters, as fetch's FormData writes them into a part header.
          fc.string({ unit: 'binary', maxLength: 20 }).map((n) => n.replace(/["\r\n]/g, '')),
        ),
        contentType: fc.oneof(
          fc.constantFrom(
            'application/pdf',
            'text/plain',
            'image/png; x=1',
            'Text/HTML; charset="utf-8"',
            `application/${'x'.repeat(300)}`,
          ),
          headerValue,
        ),
        data: fc.oneof(fc.constantFrom('xrays', 'scans', 'other', 'bogus', ''), fc.uint8Array({ maxLength: 3000 })),
      },
      { requiredKeys: ['name', 'data'] },
    );
    const mangle = fc.constantFrom('none', 'none', 'none', 'truncate', 'wrong-boundary', 'no-boundary');
    await fc.assert(
      fc.asyncProperty(
        idSegment(patientIds),
        fc.array(part, { maxLength: 5 }),
        mangle,
        fc.nat(),
        authorization(),
        async (id, parts, how, cut, auth) => {
          const form = multipartBody(parts);
          let body = form.body;
          let contentType = form.contentType;
          if (how === 'truncate') body = body.subarray(0, cut % (body.length + 1));
          if (how === 'wrong-boundary') contentType = 'multipart/form-data; boundary=not-the-one';
          if (how === 'no-boundary') contentType = 'multipart/form-data';
          await check(
            { method: 'POST', path: `/patients/${id}/documents`, headers: { authorization: auth, 'content-type': contentType }, body },
            (response, document, ...rest) => {
              assert.equal(response.status, 201);
              assertDocument(document);
              grew({ documents: 1, document_files: 1 })(response, document, ...rest);
            },
          );
        },
      ),
      FC_OPTIONS,
    );
  });

  it('any method on any path, with generated headers', async () => {
    const paths = [
      '/patients',
      '/appointments',
      '/invoices',
      '/doctors',
      '/services',
      '/document-types',
      '/payment-methods',
      `/invoices/${invoiceIds[0]}/payments`,
      `/patients/${patientIds[0]}/documents`,
      '/',
      '',
    ];
    const path = fc.oneof(
      fc.constantFrom(...paths),
      fc.tuple(fc.constantFrom(...paths), fc.string({ maxLength: 20 }).map(encodeURIComponent)).map(([p, s]) => `${p}/${s}`),
    );
    const method = fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'GET');
    const headers = fc.dictionary(
      fc.constantFrom('x-request-id', 'idempotency-key', 'accept', 'content-type', 'x-forwarded-for', 'if-none-match'),
      headerValue,
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(method, path, headers, authorization(), async (verb, where, extra, auth) => {
        await check({ method: verb, path: where, headers: { ...extra, authorization: auth } }, (response, body) => {
          assert.equal(response.status, 200);
          assert.ok(Array.isArray(body));
        });
      }),
      FC_OPTIONS,
    );
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import type { Invoice } from '../../src/domain/invoices/present-invoice.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { setModuleEnabled } from '../../src/domain/settings.js';
import { buildInvoice, buildPayment, createTestPatient } from '../helpers/builders.js';
import { assertMatchesContract } from '../helpers/contract.js';
import { useTestServer } from '../helpers/fixtures.js';
import { multipartBody, type FormPart } from '../helpers/multipart.js';
import { rawRequest } from '../helpers/raw-request.js';
import type { TestServer } from '../helpers/test-server.js';

const execFileAsync = promisify(execFile);

/** curl where Debian puts it: found by path, as test:dist runs the suites with a PATH of the program alone. */
const curl = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((path) => existsSync(path));

// GET /invoices/{invoice_id}, GET /patients/{patient_id}/documents and the document download of
// interface 1.1.0 (clinic-api-1.1.md), black box over HTTP.

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The [type, loc] of each item of a 422 detail array. */
const issuesOf = (body: any): [string, unknown[]][] => body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]);

describe('GET /invoices/{invoice_id}', () => {
  const server = useTestServer();
  let patient: Patient;
  let invoice: Invoice;
  let untouched: Invoice;
  const payments: Record<string, any>[] = [];

  before(async () => {
    patient = createTestPatient(server.db, { first_name: 'Ida', last_name: 'Rechnung' });
    invoice = createInvoice(server.db, buildInvoice(patient.id, { total: '120.50', issued_at: '2026-02-10T10:00:00Z' }));
    untouched = createInvoice(server.db, buildInvoice(patient.id, { total: '15.00', issued_at: '2026-02-11T10:00:00Z' }));
    // Recorded in this order, back to back: the order recorded is the only order they have.
    for (const body of [
      buildPayment({ amount: '10.00', method: 'cash' }),
      buildPayment({ amount: 20.5, method: 'card', note: 'terminal 2' }),
      buildPayment({ amount: '5', method: 'other', note: 'voucher' }),
      buildPayment({ amount: '0.01', method: 'bank', note: null }),
    ]) {
      const response = await server.request('POST', `/invoices/${invoice.id}/payments`, { body });
      assert.equal(response.status, 200, response.text);
      payments.push(response.body);
    }
  });

  /** The Invoice item of `id` as GET /invoices lists it now. */
  async function listed(id: string): Promise<Record<string, unknown>> {
    const response = await server.request('GET', `/invoices?patient_id=${patient.id}`);
    assert.equal(response.status, 200, response.text);
    return response.body.find((i: { id: string }) => i.id === id);
  }

  it('answers the Invoice item plus the patient and the payments in the order recorded', async () => {
    const response = await server.request('GET', `/invoices/${invoice.id}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      [response.body.status, response.body.total, response.body.amount_paid, response.body.balance],
      ['partially_paid', 120.5, 35.51, 84.99],
    );
    assert.deepEqual(response.body, {
      ...(await listed(invoice.id)),
      patient_number: patient.patient_number,
      patient_first_name: 'Ida',
      patient_last_name: 'Rechnung',
      payments: payments.map((p, index) => ({
        payment_id: p.payment_id,
        amount: [10, 20.5, 5, 0.01][index],
        method: ['cash', 'card', 'other', 'bank'][index],
        note: [null, 'terminal 2', 'voucher', null][index],
        created_at: p.created_at,
        refunded_amount: 0,
      })),
      refunds: [],
      voided_at: null,
      void_reason: null,
      amount_credited: 0,
      credit_notes: [],
    });
  });

  it('answers an invoice without payments with an empty payments array', async () => {
    const response = await server.request('GET', `/invoices/${untouched.id.toUpperCase()}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.status, 'issued');
    assert.deepEqual(response.body, {
      ...(await listed(untouched.id)),
      patient_number: patient.patient_number,
      patient_first_name: 'Ida',
      patient_last_name: 'Rechnung',
      payments: [],
      refunds: [],
      voided_at: null,
      void_reason: null,
      amount_credited: 0,
      credit_notes: [],
    });
  });

  it('answers 404 INVOICE_NOT_FOUND for an unknown id', async () => {
    const response = await server.request('GET', `/invoices/${randomUUID()}`);
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.detail.code, 'INVOICE_NOT_FOUND');
  });

  it('answers 404 INVOICE_NOT_FOUND for the id of a patient', async () => {
    const response = await server.request('GET', `/invoices/${patient.id}`);
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.detail.code, 'INVOICE_NOT_FOUND');
  });

  for (const id of ['not-a-uuid', 'INV-2026-000001']) {
    it(`refuses the malformed id ${JSON.stringify(id)} with 422 uuid_parsing at ["path","invoice_id"]`, async () => {
      const response = await server.request('GET', `/invoices/${id}`);
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(issuesOf(response.body), [['uuid_parsing', ['path', 'invoice_id']]]);
    });
  }

  it('answers 403 MODULE_DISABLED with billing off, before looking at the id, and again 200 once it is on', async () => {
    setModuleEnabled(server.db, 'billing', false);
    try {
      for (const id of [invoice.id, randomUUID(), 'not-a-uuid']) {
        const response = await server.request('GET', `/invoices/${id}`);
        assert.equal(response.status, 403, `${id}: ${response.text}`);
        assert.equal(response.body.detail.code, 'MODULE_DISABLED');
      }
      // Credentials and scope come first.
      assert.equal((await server.request('GET', `/invoices/${invoice.id}`, { key: null })).status, 401);
      const forbidden = await server.request('GET', `/invoices/${invoice.id}`, { key: server.createKey(['patients:read']) });
      assert.deepEqual([forbidden.status, forbidden.body.detail.code], [403, 'FORBIDDEN']);
    } finally {
      setModuleEnabled(server.db, 'billing', true);
    }
    assert.equal((await server.request('GET', `/invoices/${invoice.id}`)).status, 200);
  });

  it('answers DELETE with 405 and Allow naming GET', async () => {
    const response = await server.request('DELETE', `/invoices/${invoice.id}`);
    assert.equal(response.status, 405, response.text);
    assert.match(response.headers.get('allow') ?? '', /\bGET\b/);
  });

  it('does not depend on the payments module', async () => {
    setModuleEnabled(server.db, 'payments', false);
    try {
      assert.equal((await server.request('GET', `/invoices/${invoice.id}`)).status, 200);
    } finally {
      setModuleEnabled(server.db, 'payments', true);
    }
  });
});

/** Uploads one document over POST /patients/{patient_id}/documents and returns the 2.11 response. */
async function upload(server: TestServer, patientId: string, file: Partial<FormPart> & { data: string | Uint8Array }, title?: string) {
  const parts: FormPart[] = [{ name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', ...file }];
  if (title !== undefined) parts.push({ name: 'title', data: title });
  const { body, contentType } = multipartBody(parts);
  const response = await server.request('POST', `/patients/${patientId}/documents`, {
    rawBody: body,
    headers: { 'content-type': contentType },
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; filename: string; content_type: string; size: number; created_at: string; type: string };
}

describe('GET /patients/{patient_id}/documents', () => {
  const server = useTestServer();

  it('lists the documents newest first, each the upload response plus title and sha256', async () => {
    const patient = createTestPatient(server.db);
    const other = createTestPatient(server.db);
    const sent: { data: Buffer; title: string | null; uploaded: Awaited<ReturnType<typeof upload>> }[] = [];
    for (const title of ['Panoramic 2026', null, 'Consent form']) {
      const data = randomBytes(1000 + sent.length);
      const uploaded = await upload(server, patient.id, { data, filename: `doc${sent.length}.bin` }, title ?? undefined);
      sent.push({ data, title, uploaded });
      // Uploads a few milliseconds apart, so that "newest" is well defined.
      await sleep(5);
    }
    await upload(server, other.id, { data: 'not this patient' });

    const response = await server.request('GET', `/patients/${patient.id}/documents`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body,
      sent.reverse().map(({ data, title, uploaded }) => ({ ...uploaded, title, sha256: sha256(data) })),
    );
  });

  it('keeps the type and content type given at upload', async () => {
    const patient = createTestPatient(server.db);
    const { body, contentType } = multipartBody([
      { name: 'type', data: 'xrays' },
      { name: 'file', filename: 'pano.png', contentType: 'image/png', data: 'png bytes' },
    ]);
    const uploaded = await server.request('POST', `/patients/${patient.id}/documents`, {
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    const response = await server.request('GET', `/patients/${patient.id}/documents`);
    assert.deepEqual(response.body, [{ ...uploaded.body, title: null, sha256: sha256(Buffer.from('png bytes')) }]);
    assert.equal(response.body[0].type, 'xrays');
    assert.equal(response.body[0].content_type, 'image/png');
  });

  it('answers [] for a patient without documents, by an upper-case id too', async () => {
    const patient = createTestPatient(server.db);
    for (const id of [patient.id, patient.id.toUpperCase()]) {
      const response = await server.request('GET', `/patients/${id}/documents`);
      assert.deepEqual([response.status, response.body], [200, []]);
    }
  });

  it('answers 404 PATIENT_NOT_FOUND for an unknown patient', async () => {
    const response = await server.request('GET', `/patients/${randomUUID()}/documents`);
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.detail.code, 'PATIENT_NOT_FOUND');
  });

  it('checks the query before looking for the patient (422 before 404)', async () => {
    const response = await server.request('GET', `/patients/${randomUUID()}/documents?limit=0`);
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body), [['greater_than_equal', ['query', 'limit']]]);
  });

  it('refuses a malformed patient id with 422 uuid_parsing at ["path","patient_id"]', async () => {
    const response = await server.request('GET', '/patients/P-000001/documents');
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body), [['uuid_parsing', ['path', 'patient_id']]]);
  });
});

describe('GET /patients/{patient_id}/documents/{document_id}', () => {
  const server = useTestServer();
  let patientId: string;
  let otherPatientId: string;
  const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(200_000)]);
  let doc: Awaited<ReturnType<typeof upload>>;
  let othersDoc: Awaited<ReturnType<typeof upload>>;

  before(async () => {
    patientId = createTestPatient(server.db).id;
    otherPatientId = createTestPatient(server.db).id;
    doc = await upload(server, patientId, { data: bytes, filename: 'Befund Müller ✓.png', contentType: 'image/png' }, 'Befund');
    othersDoc = await upload(server, otherPatientId, { data: 'someone else' });
  });

  const pathOf = (patient: string, document: string) => `/patients/${patient}/documents/${document}`;

  /**
   * GET of a document with fetch, its body as bytes. Answers other than 200 are checked against the
   * OpenAPI document; a 200 is the stored bytes of any media type (the document's `*\/*`), which
   * the contract helper, matching media types exactly, cannot check.
   */
  async function download(path: string, headers: Record<string, string> = {}) {
    const url = `${server.baseUrl}${path}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${server.key}`, ...headers } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200)
      assertMatchesContract('GET', url, { status: response.status, headers: response.headers, text: body.toString('latin1') });
    return { status: response.status, headers: response.headers, body };
  }

  /**
   * Asserts a Content-Disposition of exactly `attachment; filename="<ascii>"; filename*=UTF-8''<name
   * percent-encoded>` (RFC 6266 §4.3; RFC 8187 attr-chars), the fallback being `ascii`.
   */
  function assertDisposition(header: string | null, filename: string, ascii: string): void {
    const match = /^attachment; filename="([^"\\]*)"; filename\*=UTF-8''(.*)$/.exec(header ?? '');
    assert.ok(match, `Content-Disposition: ${header}`);
    assert.equal(match[1], ascii, 'the ASCII fallback');
    assert.match(match[1]!, /^[\x20-\x7e]*$/, 'the fallback is printable ASCII');
    assert.match(match[2]!, /^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-Fa-f]{2})+$/, 'only attr-chars and percent-encoded octets');
    assert.equal(decodeURIComponent(match[2]!), filename);
  }

  it('answers the stored bytes with their type, length, name, ETag and nosniff', async () => {
    const response = await download(pathOf(patientId, doc.id));
    assert.equal(response.status, 200);
    assert.ok(response.body.equals(bytes), 'the bytes uploaded');
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('content-length'), String(bytes.length));
    assertDisposition(response.headers.get('content-disposition'), 'Befund Müller ✓.png', 'Befund M_ller _.png');
    assert.equal(response.headers.get('etag'), `"${sha256(bytes)}"`);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });

  it('percent-encodes every character of the stored name that may not stand raw in filename*', async () => {
    const name = 'O\'Brien (1); *copy* 100% "final".pdf';
    const stored = await upload(server, patientId, {
      data: 'x',
      filename: undefined,
      filenameStar: `utf-8''${encodeURIComponent(name).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    });
    assert.equal(stored.filename, name);
    const response = await download(pathOf(patientId, stored.id));
    assert.equal(response.status, 200);
    assertDisposition(response.headers.get('content-disposition'), name, "O'Brien (1); *copy* 100% _final_.pdf");
  });

  it(
    'gives a name curl -OJ saves the file under (the ASCII fallback of 1.2.0)',
    { skip: curl === undefined && 'no curl on this machine' },
    async () => {
      const stored = await upload(server, patientId, { data: '%PDF-1.7', filename: 'scan.pdf', contentType: 'application/pdf' });
      const folder = mkdtempSync(join(tmpdir(), 'clinic-curl-'));
      try {
        const url = `${server.baseUrl}${pathOf(patientId, stored.id)}`;
        await execFileAsync(curl!, ['-s', '-f', '-O', '-J', '-H', `Authorization: Bearer ${server.key}`, url], { cwd: folder });
        assert.deepEqual(readdirSync(folder), ['scan.pdf']);
        assert.equal(readFileSync(join(folder, 'scan.pdf'), 'utf8'), '%PDF-1.7');
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  const storedTypes: { title: string; contentType: string | undefined; data: string }[] = [
    {
      title: 'application/octet-stream for an upload whose part had no type',
      contentType: undefined,
      data: '<html>not for sniffing</html>',
    },
    { title: 'text/plain', contentType: 'text/plain', data: 'plain text' },
    { title: 'a type with a parameter', contentType: 'text/plain; charset=iso-8859-1', data: 'caf\u00e9' },
    { title: 'text/html, which nosniff and attachment keep from being rendered', contentType: 'text/html', data: '<script>1</script>' },
  ];
  for (const { title, contentType, data } of storedTypes) {
    it(`answers the Content-Type as stored: ${title}`, async () => {
      const stored = await upload(server, patientId, { data, contentType });
      const response = await download(pathOf(patientId, stored.id));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), stored.content_type);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.ok(response.body.equals(Buffer.from(data)));
    });
  }

  it('accepts both ids in upper case', async () => {
    const response = await download(pathOf(patientId.toUpperCase(), doc.id.toUpperCase()));
    assert.equal(response.status, 200);
    assert.ok(response.body.equals(bytes));
  });

  const revalidations: { title: string; headers: () => Record<string, string> }[] = [
    { title: 'naming the ETag (fetch adds Cache-Control: no-cache itself)', headers: () => ({ 'if-none-match': `"${sha256(bytes)}"` }) },
    {
      title: 'naming the ETag, with Cache-Control: no-cache and Pragma: no-cache sent explicitly',
      headers: () => ({ 'if-none-match': `"${sha256(bytes)}"`, 'cache-control': 'no-cache', pragma: 'no-cache' }),
    },
    { title: 'naming the ETag among others', headers: () => ({ 'if-none-match': `"0000", "${sha256(bytes)}", "ffff"` }) },
    // RFC 9110 §13.1.2: If-None-Match compares entity tags weakly.
    { title: 'naming the ETag as a weak tag', headers: () => ({ 'if-none-match': `W/"${sha256(bytes)}"` }) },
  ];
  for (const { title, headers } of revalidations) {
    it(`answers 304 without a body to If-None-Match ${title}`, async () => {
      const response = await download(pathOf(patientId, doc.id), headers());
      assert.equal(response.status, 304);
      assert.equal(response.body.length, 0);
      assert.equal(response.headers.get('etag'), `"${sha256(bytes)}"`);
    });
  }

  it('answers 304 to If-None-Match with Cache-Control: no-cache over a plain connection as well', async () => {
    const response = await rawRequest(server.baseUrl, {
      method: 'GET',
      path: pathOf(patientId, doc.id),
      headers: { authorization: `Bearer ${server.key}`, 'if-none-match': `"${sha256(bytes)}"`, 'cache-control': 'no-cache' },
    });
    assert.equal(response.status, 304);
    assert.equal(response.text, '');
  });

  it('answers 200 with the bytes to If-None-Match naming another ETag', async () => {
    const response = await download(pathOf(patientId, doc.id), { 'if-none-match': `"${sha256(Buffer.from('else'))}"` });
    assert.equal(response.status, 200);
    assert.ok(response.body.equals(bytes));
  });

  const notFound: { title: string; path: () => string; code: string }[] = [
    { title: 'an unknown document', path: () => pathOf(patientId, randomUUID()), code: 'DOCUMENT_NOT_FOUND' },
    { title: 'a document of another patient', path: () => pathOf(patientId, othersDoc.id), code: 'DOCUMENT_NOT_FOUND' },
    {
      title: "the other patient's view of this patient's document",
      path: () => pathOf(otherPatientId, doc.id),
      code: 'DOCUMENT_NOT_FOUND',
    },
    { title: 'an unknown patient', path: () => pathOf(randomUUID(), doc.id), code: 'PATIENT_NOT_FOUND' },
    { title: 'an unknown patient and an unknown document', path: () => pathOf(randomUUID(), randomUUID()), code: 'PATIENT_NOT_FOUND' },
  ];
  for (const { title, path, code } of notFound) {
    it(`answers 404 ${code} for ${title}`, async () => {
      const response = await server.request('GET', path());
      assert.equal(response.status, 404, response.text);
      assert.equal(response.body.detail.code, code);
      assert.equal(response.headers.get('etag'), null);
    });
  }

  it('answers DELETE with 405 and Allow naming GET', async () => {
    const response = await server.request('DELETE', pathOf(patientId, doc.id));
    assert.equal(response.status, 405, response.text);
    assert.match(response.headers.get('allow') ?? '', /\bGET\b/);
  });

  it('refuses malformed ids with 422 uuid_parsing at their path parameters', async () => {
    const response = await server.request('GET', pathOf('P-1', 'scan.pdf'));
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body), [
      ['uuid_parsing', ['path', 'patient_id']],
      ['uuid_parsing', ['path', 'document_id']],
    ]);
  });
});

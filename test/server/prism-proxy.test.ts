import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setModuleEnabled } from '../../src/domain/settings.js';
import { createTestInvoice } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { apiDescription } from '../helpers/contract.js';
import { multipartBody } from '../helpers/multipart.js';
import { loadPrismOperations, prismViolations } from '../helpers/prism-check.js';

/**
 * Stoplight Prism (`prism proxy`), the validation proxy integrators put between their client and
 * a server, reads /openapi.json and checks every request and answer passing through. Here it
 * stands in front of the real server, and a request of every operation and of each kind of
 * answer goes through it: Prism must find no violation in any answer, and none in a request the
 * interface accepts.
 */
const prismBin = fileURLToPath(new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Prism's log lines that report a violation (`Violation: request.body ...`, `Violation: response.header ...`). */
const violations = (log: string) => log.split('\n').filter((line) => line.includes('Violation:'));
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('Stoplight Prism proxy in front of the server', () => {
  const server = useTestServer();
  let dir: string;
  let prism: ChildProcessWithoutNullStreams;
  let log = '';
  let proxy: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'clinic-prism-'));
    const description = (await server.request('GET', '/openapi.json', { key: null })).body as unknown;
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(description));
    const port = await freePort();
    proxy = `http://127.0.0.1:${port}`;
    prism = spawn(process.execPath, [prismBin, 'proxy', join(dir, 'openapi.json'), server.baseUrl, '-h', '127.0.0.1', '-p', String(port)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    prism.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    prism.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const started = Date.now();
    while (!log.includes('Prism is listening')) {
      if (prism.exitCode !== null || Date.now() - started > 60_000) throw new Error(`prism did not start:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(() => {
    prism?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends a request through Prism with the server's full key unless told otherwise. */
  async function viaPrism(
    method: string,
    path: string,
    options: { body?: unknown; form?: { body: Buffer; contentType: string }; headers?: Record<string, string>; key?: string | null } = {},
  ): Promise<{ status: number; headers: Headers; json: () => Promise<any> }> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? server.key : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array | undefined;
    if (options.form) {
      headers['content-type'] = options.form.contentType;
      body = new Uint8Array(options.form.body);
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${proxy}${path}`, { method, headers, body });
    const text = Buffer.from(await response.arrayBuffer()).toString('utf8');
    return { status: response.status, headers: response.headers, json: async () => JSON.parse(text) };
  }

  it('finds no violation in a request of every operation and in its answer, success and refusals alike', async () => {
    const patient = await (
      await viaPrism('POST', '/patients', {
        body: { first_name: 'Jürgen', last_name: 'Müller-Lüdenscheidt', email: 'jm@example.at', mobile: '+43 664 1234567' },
      })
    ).json();
    const page = await viaPrism('GET', '/patients?q=lud&limit=1');
    assert.equal(page.status, 200);
    assert.equal((await viaPrism('GET', `/patients/${patient.id}`)).status, 200);
    assert.equal((await viaPrism('GET', '/patients/00000000-0000-4000-8000-000000000000')).status, 404);

    const booked = await (
      await viaPrism('POST', '/appointments', {
        body: { patient_id: patient.id, start_at: '2026-12-01T09:00', end_at: '2026-12-01T09:30' },
      })
    ).json();
    assert.equal((await viaPrism('GET', '/appointments?from=2026-12-01&to=2026-12-01&limit=1')).status, 200);
    assert.equal((await viaPrism('GET', `/appointments/${booked.id}`)).status, 200);
    assert.equal((await viaPrism('GET', '/appointments/00000000-0000-4000-8000-000000000000')).status, 404);

    const form = multipartBody([
      { name: 'type', data: 'xrays' },
      { name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.4 scan') },
    ]);
    const uploaded = await (await viaPrism('POST', `/patients/${patient.id}/documents`, { form })).json();
    assert.equal((await viaPrism('GET', `/patients/${patient.id}/documents?limit=5`)).status, 200);
    const download = await viaPrism('GET', `/patients/${patient.id}/documents/${uploaded.id}`);
    assert.equal(download.status, 200);
    const etag = download.headers.get('etag')!;
    assert.equal(
      (await viaPrism('GET', `/patients/${patient.id}/documents/${uploaded.id}`, { headers: { 'if-none-match': etag } })).status,
      304,
    );
    assert.equal((await viaPrism('GET', `/patients/${patient.id}/documents/00000000-0000-4000-8000-000000000000`)).status, 404);

    setModuleEnabled(server.db, 'billing', true);
    setModuleEnabled(server.db, 'payments', true);
    const invoice = createTestInvoice(server.db, { patient_id: patient.id, total: '85.50' });
    assert.equal((await viaPrism('GET', '/invoices?unpaid=true&limit=1')).status, 200);
    assert.equal((await viaPrism('GET', `/invoices/${invoice.id}`)).status, 200);
    const pay = { body: { amount: '40.00', method: 'cash' }, headers: { 'idempotency-key': 'prism-1' } };
    assert.equal((await viaPrism('POST', `/invoices/${invoice.id}/payments`, pay)).status, 200);
    const replay = await viaPrism('POST', `/invoices/${invoice.id}/payments`, pay);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal((await viaPrism('POST', `/invoices/${invoice.id}/payments`, { body: { amount: '99.00', method: 'cash' } })).status, 422);
    for (const lookup of ['/services', '/doctors', '/document-types', '/payment-methods']) {
      assert.equal((await viaPrism('GET', lookup)).status, 200, lookup);
    }
    const readOnly = server.createKey(['patients:read']);
    assert.equal((await viaPrism('GET', '/appointments', { key: readOnly })).status, 403);
    setModuleEnabled(server.db, 'billing', false);
    assert.equal((await viaPrism('GET', `/invoices/${invoice.id}`)).status, 403);
    setModuleEnabled(server.db, 'billing', true);

    await settle();
    assert.deepEqual(violations(log), []);
    assert.ok(log.includes('has returned 201') && log.includes('has returned 304'), 'the answers came from the server, not from Prism');
  });

  it('finds no violation in the answers to requests the interface refuses', async () => {
    const before = log.length;
    const refused = [
      await viaPrism('POST', '/patients', { body: { first_name: 'A' } }),
      await viaPrism('GET', '/patients?q='),
      await viaPrism('GET', '/patients?limit=0'),
      await viaPrism('GET', '/appointments?from=2026-12-02&to=2026-12-01'),
      await viaPrism('GET', '/patients/P-000001'),
      await viaPrism('GET', '/patients', { key: null }),
    ];
    assert.deepEqual(
      refused.map((response) => response.status),
      [422, 422, 422, 422, 422, 401],
    );
    await settle();
    const found = violations(log.slice(before));
    assert.ok(found.length > 0, 'Prism saw the requests it was meant to see as invalid');
    assert.deepEqual(
      found.filter((line) => /Violation: response/.test(line)),
      [],
    );
  });
});

describe("Prism's validators on every answer the HTTP suites receive (test/helpers/contract.ts)", () => {
  before(() => loadPrismOperations(apiDescription));
  const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r' };

  it('report an answer off its schema, and find nothing in one that fits', () => {
    const url = '/api/public/v1/patients/00000000-0000-4000-8000-000000000000';
    const wrong = prismViolations('GET', url, { status: 200, headers: json, text: JSON.stringify({ id: 5 }) });
    assert.ok(wrong.length > 0, 'a Patient without its fields is reported');
    const refusal = { detail: { code: 'PATIENT_NOT_FOUND', message: 'No patient has this id.' } };
    assert.deepEqual(prismViolations('GET', url, { status: 404, headers: json, text: JSON.stringify(refusal) }), []);
  });

  it('report a status the document does not list for the operation', () => {
    const violations = prismViolations('GET', '/api/public/v1/document-types', { status: 418, headers: json, text: '{}' });
    assert.ok(violations.some((line) => line.includes('Unable to match the returned status code')));
  });
});

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { buildInvoice, buildPatient, createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { multipartBody } from '../helpers/multipart.js';
import { runClinic } from '../helpers/run-cli.js';

// The read scopes of interface 1.1.0 (clinic-api-1.1.md, "Scopes"), with keys issued by
// `clinic api-key create` with and without --scopes.

const WRITE_SCOPES = ['patients:write', 'appointments:write', 'documents:write', 'payments:write'];

describe('read scopes', () => {
  const server = useTestServer();
  type IssuedKey = { key: string; scopes: string[] };
  const keys = {} as Record<'writer' | 'patientReader' | 'unscoped', IssuedKey>;
  const ids = { patient: '', appointment: '', invoice: '', document: '' };

  /** `clinic api-key create` on the server's data directory; its --json output. */
  async function issueKey(name: string, scopes?: string[]) {
    const created = await runClinic([
      'api-key',
      'create',
      '--name',
      name,
      ...(scopes ? ['--scopes', scopes.join(',')] : []),
      '--json',
      '--data',
      server.dataDir,
    ]);
    assert.equal(created.code, 0, created.stderr);
    return JSON.parse(created.stdout) as IssuedKey;
  }

  before(async () => {
    setClinicTimeZone(server.db, 'UTC');
    ids.patient = createTestPatient(server.db).id;
    ids.appointment = bookAppointment(
      server.db,
      { patient_id: ids.patient, start_at: '2026-12-01T09:00:00Z', end_at: '2026-12-01T09:30:00Z' },
      'api',
    ).id;
    ids.invoice = createInvoice(server.db, buildInvoice(ids.patient)).id;
    const { body, contentType } = multipartBody([
      { name: 'file', filename: 'a.bin', contentType: 'application/octet-stream', data: 'bytes' },
    ]);
    const uploaded = await server.request('POST', `/patients/${ids.patient}/documents`, {
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    ids.document = uploaded.body.id;
    keys.writer = await issueKey('writer', WRITE_SCOPES);
    keys.patientReader = await issueKey('phone system', ['patients:read']);
    keys.unscoped = await issueKey('everything');
  });

  /** Every read endpoint of 1.1.0 (and GET /invoices) with the scope it needs. */
  const reads: { path: () => string; scope: string }[] = [
    { path: () => '/patients', scope: 'patients:read' },
    { path: () => '/patients?q=ada&limit=1', scope: 'patients:read' },
    { path: () => `/patients/${ids.patient}`, scope: 'patients:read' },
    { path: () => '/appointments?from=2026-12-01', scope: 'appointments:read' },
    { path: () => `/appointments/${ids.appointment}`, scope: 'appointments:read' },
    { path: () => `/invoices/${ids.invoice}`, scope: 'invoices:read' },
    { path: () => '/invoices?limit=1', scope: 'invoices:read' },
    { path: () => `/patients/${ids.patient}/documents`, scope: 'documents:read' },
    { path: () => `/patients/${ids.patient}/documents/${ids.document}`, scope: 'documents:read' },
  ];

  it('issues a key without --scopes with every scope, the read scopes included', () => {
    for (const scope of ['patients:read', 'appointments:read', 'documents:read', 'invoices:read', ...WRITE_SCOPES, 'lookups:read']) {
      assert.ok(keys.unscoped.scopes.includes(scope), scope);
    }
    assert.deepEqual([...keys.writer.scopes].sort(), [...WRITE_SCOPES].sort());
    assert.deepEqual(keys.patientReader.scopes, ['patients:read']);
  });

  it('answers 401 UNAUTHENTICATED with WWW-Authenticate: Bearer on every read endpoint without a key', async () => {
    for (const { path } of reads) {
      const response = await server.request('GET', path(), { key: null });
      assert.deepEqual([response.status, response.body?.detail?.code], [401, 'UNAUTHENTICATED'], `GET ${path()}: ${response.text}`);
      assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
  });

  it('answers 403 FORBIDDEN on every read endpoint to a key issued with only the write scopes', async () => {
    for (const { path } of reads) {
      const response = await server.request('GET', path(), { key: keys.writer.key });
      assert.deepEqual([response.status, response.body?.detail?.code], [403, 'FORBIDDEN'], `GET ${path()}: ${response.text}`);
    }
    // The key itself works: it may write.
    const created = await server.request('POST', '/patients', { body: buildPatient(), key: keys.writer.key });
    assert.equal(created.status, 201, created.text);
  });

  it('checks the scope before the query, the path and the resource', async () => {
    for (const path of [
      '/patients?q=',
      '/patients/not-a-uuid',
      `/patients/${ids.appointment}`,
      '/appointments?to=soon',
      '/patients?limit=0',
    ]) {
      const response = await server.request('GET', path, { key: keys.writer.key });
      assert.deepEqual([response.status, response.body?.detail?.code], [403, 'FORBIDDEN'], `GET ${path}: ${response.text}`);
    }
  });

  it('lets a key with only patients:read read patients, and nothing else', async () => {
    for (const { path, scope } of reads) {
      const response = await server.request('GET', path(), { key: keys.patientReader.key });
      if (scope === 'patients:read') assert.equal(response.status, 200, `GET ${path()}: ${response.text}`);
      else assert.deepEqual([response.status, response.body?.detail?.code], [403, 'FORBIDDEN'], `GET ${path()}: ${response.text}`);
    }
    const write = await server.request('POST', '/patients', { body: buildPatient(), key: keys.patientReader.key });
    assert.deepEqual([write.status, write.body?.detail?.code], [403, 'FORBIDDEN']);
  });

  it('lets a key issued without --scopes read and write everything', async () => {
    for (const { path } of reads) {
      const response = await server.request('GET', path(), { key: keys.unscoped.key });
      assert.equal(response.status, 200, `GET ${path()}: ${response.text}`);
    }
    const write = await server.request('POST', '/patients', { body: buildPatient(), key: keys.unscoped.key });
    assert.equal(write.status, 201, write.text);
  });
});

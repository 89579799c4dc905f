import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestInvoice } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { runNode } from '../helpers/run-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

// What an integrator writes against a client generated with the tools' default options: a
// patient with the four fields the rules need and nothing else, found again by name, a booking,
// the day's list, a document uploaded and read back, and a payment of the invoice whose number
// is on the patient's paper. It must type-check under --strict and run against the real server.
// openapi-typescript types a `format: binary` part as string with its default options (its
// `transform` option makes it Blob); the form is built by openapi-fetch's bodySerializer.
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL!, headers: { Authorization: \`Bearer \${process.env.KEY!}\` } });
const patient = await client.POST('/patients', {
  body: { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.org', mobile: '+43 660 7654321' },
});
if (!patient.data) throw new Error(\`create patient: \${JSON.stringify(patient.error)}\`);
const found = await client.GET('/patients', { params: { query: { q: 'HOPP grace', limit: 10 } } });
const id = found.data?.[0]?.id;
if (id !== patient.data.id) throw new Error(\`find: \${JSON.stringify(found.data ?? found.error)}\`);
const booked = await client.POST('/appointments', {
  body: { patient_id: id, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30Z', title: 'Check-up' },
});
if (!booked.data) throw new Error(\`book: \${JSON.stringify(booked.error)}\`);
const day = await client.GET('/appointments', { params: { query: { from: '2026-12-01', to: '2026-12-01' } } });
if (!day.data?.some((a) => a.id === booked.data.id)) throw new Error(\`day: \${JSON.stringify(day.data ?? day.error)}\`);
const uploaded = await client.POST('/patients/{patient_id}/documents', {
  params: { path: { patient_id: id } },
  body: { file: 'panoramic x-ray, 2026', type: 'xrays', title: 'Panoramic' },
  bodySerializer(body) {
    const form = new FormData();
    form.append('file', new Blob([body.file], { type: 'text/plain' }), 'panoramic.txt');
    if (body.type) form.append('type', body.type);
    if (body.title) form.append('title', body.title);
    return form;
  },
});
if (!uploaded.data) throw new Error(\`upload: \${JSON.stringify(uploaded.error)}\`);
const downloaded = await client.GET('/patients/{patient_id}/documents/{document_id}', {
  params: { path: { patient_id: id, document_id: uploaded.data.id } },
  parseAs: 'text',
});
if (downloaded.data !== 'panoramic x-ray, 2026') throw new Error(\`download: \${String(downloaded.data)}\`);
const invoices = await client.GET('/invoices', { params: { query: { unpaid: true } } });
const invoice = invoices.data?.find((i) => i.invoice_number === process.env.INVOICE_NUMBER);
if (!invoice) throw new Error('no open invoice with that number');
const paid = await client.POST('/invoices/{invoice_id}/payments', {
  params: { path: { invoice_id: invoice.id }, header: { 'Idempotency-Key': 'generated-client-1' } },
  body: { amount: invoice.balance, method: 'cash' },
});
if (!paid.data) throw new Error(\`pay: \${JSON.stringify(paid.error)}\`);
const status: string = paid.data.invoice_status;
// Interface 1.2.0: correct the patient (If-Match its ETag), move and cancel the booking, refund the payment, void the invoice.
const edited = await client.PATCH('/patients/{patient_id}', {
  params: { path: { patient_id: id }, header: { 'If-Match': \`"\${patient.data.version}"\` } },
  body: { mobile: '+43 660 1111111', notes: null },
});
if (edited.data?.version !== 2) throw new Error(\`edit: \${JSON.stringify(edited.data ?? edited.error)}\`);
const moved = await client.PATCH('/appointments/{appointment_id}', {
  params: { path: { appointment_id: booked.data.id } },
  body: { start_at: '2026-12-01T10:00Z', end_at: '2026-12-01T10:30Z', overlap: 'reject' },
});
if (moved.data?.reschedule_from_start_at !== booked.data.start_at) throw new Error(\`move: \${JSON.stringify(moved.data ?? moved.error)}\`);
const cancelled = await client.PATCH('/appointments/{appointment_id}', {
  params: { path: { appointment_id: booked.data.id } },
  body: { status: 'cancelled', status_reason: 'ill' },
});
if (cancelled.data?.status !== 'cancelled') throw new Error(\`cancel: \${JSON.stringify(cancelled.data ?? cancelled.error)}\`);
const refunded = await client.POST('/payments/{payment_id}/refunds', {
  params: { path: { payment_id: paid.data.payment_id }, header: { 'Idempotency-Key': 'generated-client-refund-1' } },
  body: { reason: 'issued in error' },
});
if (refunded.data?.invoice_status !== 'issued') throw new Error(\`refund: \${JSON.stringify(refunded.data ?? refunded.error)}\`);
const voided = await client.POST('/invoices/{invoice_id}/void', {
  params: { path: { invoice_id: invoice.id } },
  body: { reason: 'issued in error' },
});
const voidStatus: string | undefined = voided.data?.status;
if (voidStatus !== 'void' || voided.data?.refunds.length !== 1) throw new Error(\`void: \${JSON.stringify(voided.data ?? voided.error)}\`);
process.stdout.write(JSON.stringify({ patient_number: patient.data.patient_number, appointment_number: booked.data.appointment_number, status, voidStatus }));
`;

describe('a client generated by openapi-typescript and openapi-fetch with their default options', () => {
  const server = useTestServer();
  let dir: string;
  before(() => {
    mkdirSync(join(root, '.tmp'), { recursive: true });
    // Inside the repository, so that the client resolves openapi-fetch from node_modules.
    dir = mkdtempSync(join(root, '.tmp', 'generated-client-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('type-checks under --strict and runs create patient → find → book → list the day → upload → download → pay by invoice number → the corrections of 1.2.0', async () => {
    const description = (await server.request('GET', '/openapi.json', { key: null })).body as Record<string, unknown>;
    writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(description as never)));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const tsc = await runNode(
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        '--strict',
        '--noEmit',
        '--skipLibCheck',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        'client.ts',
      ],
      { cwd: dir },
    );
    assert.equal(tsc.code, 0, `tsc: ${tsc.stdout}${tsc.stderr}`);

    const invoice = createTestInvoice(server.db, { total: '42.00' });
    const run = await runNode(['--import', 'tsx', 'client.ts'], {
      cwd: dir,
      env: {
        ...process.env,
        BASE_URL: server.baseUrl,
        KEY: server.key,
        INVOICE_NUMBER: invoice.invoice_number,
      },
    });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { patient_number: string; appointment_number: string; status: string; voidStatus: string };
    assert.match(result.patient_number, /^P-\d{6}$/);
    assert.match(result.appointment_number, /^A-\d{6}$/);
    assert.equal(result.status, 'paid');
    assert.equal(result.voidStatus, 'void');
  });
});

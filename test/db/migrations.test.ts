import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { copyReleaseFixture } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../helpers/schema-of.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The first real migration (schema 1 → 2, interface 1.0.0 → 1.1.0), on a data directory made by
 * release 1.0.0 itself (test/fixtures/release-1.0.0/README.md says how): the server of this
 * program opens it as a clinic's would after an upgrade.
 */
const fixture = fileURLToPath(new URL('../fixtures/release-1.0.0', import.meta.url));
const keys = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<
  'all_six_scopes' | 'front_desk_tablet' | 'revoked',
  { id: string; key: string; scopes: string[] }
>;

describe('upgrading a data directory made by release 1.0.0', () => {
  let server: TestServer;
  let dataDir: string;
  const asOld = { key: keys.all_six_scopes.key };

  before(async () => {
    dataDir = copyReleaseFixture(fixture);
    server = await startTestServer({}, dataDir);
  });
  after(() => server.close());

  it('keeps every record and finds the old patients by name, number, date of birth and phone', async () => {
    for (const q of ['muller', 'LÜD', 'P-1', '23.07.1961', 'jm@example.at', '1234567']) {
      const found = await server.request('GET', `/patients?q=${encodeURIComponent(q)}`, asOld);
      assert.equal(found.status, 200, q);
      assert.deepEqual(
        found.body.map((p: { patient_number: string }) => p.patient_number),
        ['P-000001'],
        `q=${q}`,
      );
    }
    const all = await server.request('GET', '/patients', asOld);
    assert.deepEqual(
      all.body.map((p: { last_name: string; outstanding_balance: string }) => [p.last_name, p.outstanding_balance]),
      [
        ['Huber', '120.00'],
        ['Müller-Lüdenscheidt', '45.50'],
      ],
    );
  });

  it('lists the old appointments in the clinic time zone, including one that began before the window', async () => {
    const day = await server.request('GET', '/appointments?from=2026-11-20&to=2026-11-21', asOld);
    assert.equal(day.status, 200);
    assert.deepEqual(
      day.body.map((a: { appointment_number: string; start_at: string }) => [a.appointment_number, a.start_at]),
      [
        ['A-000001', '2026-11-20T13:00:00.000Z'],
        ['A-000002', '2026-11-21T08:00:00.000Z'],
      ],
    );
    // 09:00–09:45 Vienna: under way at 09:30, found only if the migration measured the old appointments' length.
    const underWay = await server.request('GET', '/appointments?from=2026-11-21T09:30&to=2026-11-21T10:00', asOld);
    assert.deepEqual(
      underWay.body.map((a: { appointment_number: string }) => a.appointment_number),
      ['A-000002'],
    );
  });

  it('reads the old invoice with its payment and the old document with its bytes', async () => {
    const invoices = await server.request('GET', '/invoices', asOld);
    const first = invoices.body.find((i: { invoice_number: string }) => i.invoice_number === 'INV-2026-000001');
    const invoice = await server.request('GET', `/invoices/${first.id}`, asOld);
    assert.equal(invoice.status, 200);
    assert.equal(invoice.body.patient_last_name, 'Müller-Lüdenscheidt');
    assert.deepEqual(
      invoice.body.payments.map((p: { amount: number; method: string }) => [p.amount, p.method]),
      [[40, 'cash']],
    );

    const patientId = first.patient_id as string;
    const documents = await server.request('GET', `/patients/${patientId}/documents`, asOld);
    assert.equal(documents.status, 200);
    assert.equal(documents.body.length, 1);
    assert.equal(documents.body[0].title, 'Röntgen Kiefer');
    const [stored] = readdirSync(join(fixture, 'documents', patientId));
    const download = await fetch(`${server.baseUrl}/patients/${patientId}/documents/${documents.body[0].id}`, {
      headers: { authorization: `Bearer ${keys.all_six_scopes.key}` },
    });
    assert.equal(download.status, 200);
    assert.deepEqual(Buffer.from(await download.arrayBuffer()), readFileSync(join(fixture, 'documents', patientId, stored!)));
  });

  it('gives a key that held every 1.0.0 scope the read scopes, and leaves a narrowed key and a revoked key as they were', async () => {
    const listed = await runClinic(['api-key', 'list', '--json', '--data', dataDir]);
    assert.equal(listed.code, 0, listed.stderr);
    const byId = new Map((JSON.parse(listed.stdout) as { id: string; scopes: string[] }[]).map((key) => [key.id, key.scopes]));
    assert.ok(byId.get(keys.all_six_scopes.id)?.includes('patients:read'));
    assert.ok(byId.get(keys.all_six_scopes.id)?.includes('documents:read'));
    assert.deepEqual(byId.get(keys.front_desk_tablet.id), ['patients:write', 'appointments:write']);

    const tablet = { key: keys.front_desk_tablet.key };
    assert.equal((await server.request('GET', '/patients', tablet)).body.detail.code, 'FORBIDDEN');
    assert.equal((await server.request('GET', '/appointments', tablet)).status, 403);
    assert.equal((await server.request('GET', '/patients', { key: keys.revoked.key })).status, 401);
  });

  it('hands out the next numbers, never an old one, and passes clinic check', async () => {
    const created = await server.request('POST', '/patients', {
      ...asOld,
      body: { first_name: 'Eva', last_name: 'Neu', email: 'eva@example.at', mobile: '+43 660 1' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.patient_number, 'P-000003');
    const check = await runClinic(['check', '--data', dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('the migrations from schema version 1', () => {
  it('leaves a 1.0.0 database with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});

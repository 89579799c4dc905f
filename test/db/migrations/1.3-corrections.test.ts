import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { useRestoredBackup, useUpgradedRelease } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../../helpers/schema-of.js';
import { readDatabase, columnsOf, rowsOf } from '../../helpers/release-database.js';

/**
 * Migration 9 (doctors and services retired, credit notes, stored answers: clinic-api-1.3.md
 * "Corrections the desk asked for"), on the data directory and backup made by release 1.2.0
 * (test/fixtures/release-1.2.0/README.md): its invoices table is rebuilt for the new CHECKs.
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.2.0', import.meta.url));
const secrets = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<'praxis_software', { id: string; key: string }>;
const TABLES = ['doctors', 'services', 'patients', 'appointments', 'invoices', 'payments', 'refunds', 'documents', 'change_events'];

describe('upgrading a data directory made by release 1.2.0 to the desk’s corrections (schema 9)', () => {
  const release = useUpgradedRelease(fixture, { keepOriginal: true });
  const asOld = { key: secrets.praxis_software.key };

  it('keeps every row, in its order; what is new is empty: nothing retired, nothing credited', () => {
    const old = readDatabase(release.original, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), 6);
      return Object.fromEntries(TABLES.map((table) => [table, rowsOf(db, table, columnsOf(db, table))]));
    });
    readDatabase(release.dataDir, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      for (const table of TABLES) {
        const columns = Object.keys((old[table] as Record<string, unknown>[])[0] ?? {});
        assert.deepEqual(rowsOf(db, table, columns), old[table], table);
      }
      assert.deepEqual(
        TABLES.map((table) => old[table]!.length),
        [2, 1, 3, 2, 4, 2, 1, 1, 16],
        'the fixture holds what its README says',
      );
      assert.deepEqual(db.prepare('SELECT name, color, retired_at FROM doctors ORDER BY seq').all(), [
        { name: 'Dr. Anna Berger', color: 'blau', retired_at: null },
        { name: 'Dr. Anna Berger', color: '#3366cc', retired_at: null },
      ]);
      assert.deepEqual(db.prepare('SELECT DISTINCT amount_credited_cents FROM invoices').all(), [{ amount_credited_cents: 0 }]);
      assert.deepEqual(db.prepare('SELECT count(*) AS n FROM credit_notes').get(), { n: 0 });
      assert.deepEqual(db.pragma('foreign_key_check'), []);
    });
  });

  it('keeps the two doctors of one name ambiguous until one is retired; then the name finds the other', async () => {
    const doctors = await release.server.request('GET', '/doctors', asOld);
    assert.deepEqual(
      (doctors.body as { name: string; color: string; retired_at: null }[]).map((doctor) => [doctor.name, doctor.color, doctor.retired_at]),
      [
        ['Dr. Anna Berger', 'blau', null],
        ['Dr. Anna Berger', '#3366cc', null],
      ],
    );
    const [first, second] = doctors.body as { id: string }[];
    const ambiguous = await runClinic(['doctor', 'edit', 'berger', '--name', 'Dr. Anna Berger-Koch', '--data', release.dataDir]);
    assert.equal(ambiguous.code, 1, ambiguous.stdout);
    assert.match(ambiguous.stderr.replace(/\s+/g, ' '), /"berger" could be any of Dr\. Anna Berger/);

    const retired = await runClinic(['doctor', 'retire', first!.id, '--json', '--data', release.dataDir]);
    assert.equal(retired.code, 0, retired.stderr);
    const reinstated = await runClinic(['doctor', 'edit', 'berger', '--color', '#3366CC', '--json', '--data', release.dataDir]);
    assert.equal(reinstated.code, 0, reinstated.stderr);
    assert.equal((JSON.parse(reinstated.stdout) as { id: string }).id, second!.id, 'the active one of the name');
  });

  it('credits an invoice the old release part-paid, and clinic check passes', async () => {
    const invoices = await release.server.request('GET', '/invoices', asOld);
    const part = (invoices.body as { id: string; invoice_number: string }[]).find(
      (invoice) => invoice.invoice_number === 'INV-2026-000003',
    );
    const credited = await release.server.request('POST', `/invoices/${part!.id}/credit-notes`, {
      ...asOld,
      body: { amount: '5.50', reason: 'Kontrolle zu hoch verrechnet' },
    });
    assert.equal(credited.status, 201, JSON.stringify(credited.body));
    assert.deepEqual(
      [credited.body.status, credited.body.amount_paid, credited.body.amount_credited, credited.body.balance],
      ['partially_paid', 20, 5.5, 60],
    );
    assert.equal(credited.body.credit_notes[0].credit_note_number, 'CN-2026-000001');
    const check = await runClinic(['check', '--data', release.dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('a backup made by release 1.2.0', () => {
  const target = useRestoredBackup(fixture);

  it('restores with every record; the doctors keep their names and colours, and clinic check passes', async () => {
    readDatabase(target(), (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      assert.deepEqual(TABLES.map(count), [2, 1, 3, 2, 4, 2, 1, 1, 16]);
      assert.deepEqual(db.prepare('SELECT color FROM doctors ORDER BY seq').all(), [{ color: 'blau' }, { color: '#3366cc' }]);
    });
    const check = await runClinic(['check', '--data', target()]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('the migrations from schema version 6', () => {
  it('leave a database of release 1.2.0 with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});

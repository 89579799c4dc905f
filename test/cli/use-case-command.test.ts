import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { addDoctor } from '../../src/domain/catalog.js';
import { createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';

/**
 * `--idempotency-key K` on the desk's commands that create or change what the API's POSTs do
 * (clinic-api-1.3.md, "Versions, failures, retries"): the same command again with K prints what
 * the first recorded and records nothing; K with another command is IDEMPOTENCY_KEY_REUSED (exit 1);
 * one key space with the API.
 */
describe('--idempotency-key on the desk commands that create', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const count = (table: string) => (data.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  const recorded = () => ['patients', 'appointments', 'invoices', 'documents', 'audit_events', 'change_events'].map(count);
  const ok = (result: CliResult) => {
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return result;
  };

  it('create-patient, book-appointment, invoice create, invoice void and upload-document each answer a key once', async () => {
    const patient = createTestPatient(data.db, { first_name: 'Ida', last_name: 'Einmal' });
    const invoice = createTestInvoice(data.db, { patient_id: patient.id, total: '30.00' });
    addDoctor(data.db, { name: 'Dr. Einmal', color: '#123456' });
    const scan = join(data.dataDir, '..', `scan-${process.pid}.pdf`);
    writeFileSync(scan, 'scanned once');
    const commands: [string, string[]][] = [
      ['patient', ['create-patient', '--first-name', 'Otto', '--last-name', 'Einmal', '--email', 'o@example.org', '--mobile', '+43 660 1']],
      [
        'booking',
        [
          'book-appointment',
          '--patient-id',
          patient.patient_number,
          '--doctor',
          'Einmal',
          '--start-at',
          '2026-12-07 09:00',
          '--end-at',
          '2026-12-07 09:30',
        ],
      ],
      ['invoice', ['invoice', 'create', '--patient-id', patient.patient_number, '--total', '12.00']],
      ['void', ['invoice', 'void', invoice.invoice_number, '--reason', 'issued twice']],
      ['document', ['upload-document', '--patient-id', patient.patient_number, '--file', scan, '--title', 'Scan']],
    ];
    for (const [what, args] of commands) {
      const key = `desk-${what}-1`;
      const first = ok(await clinic(...args, '--idempotency-key', key, '--json'));
      const after = recorded();
      const again = ok(await clinic(...args, '--idempotency-key', key));
      assert.match(again.stdout, new RegExp(`^This key was already used for this ${what}: nothing new was recorded\\.$`, 'm'));
      assert.equal(ok(await clinic(...args, '--idempotency-key', key, '--json')).stdout, first.stdout, what);
      assert.deepEqual(recorded(), after, `${what}: the replays recorded nothing`);
    }
    const newInvoiceWithKey = (key: string) =>
      clinic('invoice', 'create', '--patient-id', patient.patient_number, '--total', '5', '--idempotency-key', key);
    // The key with another request: another patient, or an invoice (one key space).
    const otherPatient = await clinic(
      ...commands[0]![1].map((word) => (word === 'Otto' ? 'Anna' : word)),
      '--idempotency-key',
      'desk-patient-1',
    );
    assert.equal(otherPatient.code, 1);
    assert.match(otherPatient.stderr, /IDEMPOTENCY_KEY_REUSED/);
    const reused = await newInvoiceWithKey('desk-patient-1');
    assert.equal(reused.code, 1);
    assert.match(reused.stderr, /IDEMPOTENCY_KEY_REUSED/);
    // A malformed key is a usage error of its own field, and records nothing.
    const before = recorded();
    const malformed = await newInvoiceWithKey('has space');
    assert.notEqual(malformed.code, 0);
    assert.match(malformed.stderr, /idempotency-key/i);
    assert.deepEqual(recorded(), before);
  });
});

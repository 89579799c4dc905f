import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildInvoice, buildPatient } from '../../helpers/builders.js';
import { runClinic } from '../../helpers/run-cli.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { jsonOf } from '../../helpers/desk-output.js';

/** `clinic notifications list`: the outbox of messages to patients, as the desk reads it. */
describe('clinic notifications list', () => {
  const data = useTestDatabase();
  let patientId: string;
  before(async () => {
    patientId = createPatient(data.db, buildPatient()).id;
  });

  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

  describe('notifications list', () => {
    it('prints the outbox rows, filtered by status', async () => {
      const invoice = createInvoice(data.db, buildInvoice(patientId, { total: '3' }));
      jsonOf(await clinic('record-payment', '--invoice-id', invoice.id, '--amount', '3', '--method', 'cash', '--json'));
      const rows = jsonOf(await clinic('notifications', 'list', '--json'));
      const row = rows.find((r: { invoice_id: string }) => r.invoice_id === invoice.id);
      for (const field of ['id', 'patient_id', 'invoice_id', 'channel', 'status', 'attempts', 'created_at', 'sent_at', 'last_error']) {
        assert.ok(field in row, field);
      }
      assert.deepEqual([row.patient_id, row.channel, row.status, row.attempts, row.sent_at], [patientId, 'email', 'pending', 0, null]);
      assert.ok(
        jsonOf(await clinic('notifications', 'list', '--status', 'pending', '--json')).some((r: { id: string }) => r.id === row.id),
      );
      assert.deepEqual(jsonOf(await clinic('notifications', 'list', '--status', 'sent', '--json')), []);
      // For people: the patient's number and name, the invoice's number, clinic time; no ids.
      const table = await clinic('notifications', 'list');
      assert.match(
        table.stdout,
        new RegExp(
          `^\\d{2}\\.\\d{2}\\.\\d{4} \\d{2}:\\d{2}\\s+P-\\d{6} \\S+.*\\s+${invoice.invoice_number}\\s+email\\s+pending\\s+0$`,
          'm',
        ),
      );
      assert.doesNotMatch(table.stdout, /[0-9a-f]{8}-[0-9a-f]{4}-/, 'no UUIDs');
      for (const line of table.stdout.split('\n')) assert.ok(line.length <= 100, line);
      assert.equal((await clinic('notifications', 'list', '--status', 'sent')).stdout, 'No notifications.\n');
    });

    it('refuses an unknown status', async () => {
      const result = await clinic('notifications', 'list', '--status', 'lost');
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /--status "lost": is not one of the choices \(literal_error\)\n {4}hint: one of: pending, sent, failed$/m,
      );
    });
  });
});

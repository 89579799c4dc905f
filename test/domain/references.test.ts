import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { buildInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';
import { jsonOf, refusalOf } from '../helpers/desk-output.js';

describe('references staff type: ids or the numbers on paper', () => {
  const data = useTestDatabase();
  let patient: Patient;
  let invoiceId: string;
  before(() => {
    patient = createTestPatient(data.db);
    invoiceId = createInvoice(data.db, buildInvoice(patient.id, { total: '100.00', issued_at: '2026-03-01T10:00Z' })).id;
  });
  const clinic = (...args: string[]) => runClinic([...args, '--json', '--data', data.dataDir]);

  it('takes a patient number in any case and with or without its zero padding', async () => {
    assert.equal(patient.patient_number, 'P-000001');
    const booked = jsonOf(
      await clinic('book-appointment', '--patient-id', 'p-1', '--start-at', '2026-12-01T09:00Z', '--end-at', '2026-12-01T09:30Z'),
    );
    assert.equal(booked.patient_id, patient.id);
    const invoice = jsonOf(await clinic('invoice', 'create', '--patient-id', 'P-000001', '--total', '12.50'));
    assert.equal(invoice.patient_id, patient.id);
    const listed = jsonOf(await clinic('invoice', 'list', '--patient-id', 'P-01')) as unknown as { patient_id: string }[];
    assert.equal(listed.length, 2);
    assert.ok(listed.every((item) => item.patient_id === patient.id));
    const file = join(data.dataDir, 'letter.txt');
    writeFileSync(file, 'a letter');
    assert.equal(jsonOf(await clinic('upload-document', '--patient-id', 'p-000001', '--file', file)).size, 8);
  });

  it('takes an invoice number with --invoice or --invoice-id, and the id as before', async () => {
    assert.equal(
      jsonOf(await clinic('record-payment', '--invoice', 'inv-2026-1', '--amount', '10', '--method', 'cash')).invoice_id,
      invoiceId,
    );
    assert.equal(
      jsonOf(await clinic('record-payment', '--invoice-id', 'INV-2026-000001', '--amount', '10', '--method', 'cash')).invoice_id,
      invoiceId,
    );
    assert.equal(jsonOf(await clinic('record-payment', '--invoice', invoiceId, '--amount', '10', '--method', 'card')).invoice_balance, 70);
  });

  it('answers a number that names nothing with the API 404 code, and a missing invoice with a usage error', async () => {
    assert.deepEqual(
      refusalOf(
        await clinic('book-appointment', '--patient-id', 'P-999', '--start-at', '2026-12-01T09:00Z', '--end-at', '2026-12-01T09:30Z'),
      ),
      {
        code: 'PATIENT_NOT_FOUND',
        message: 'No patient has the number P-999.',
      },
    );
    assert.equal(refusalOf(await clinic('invoice', 'list', '--patient-id', 'P-999')).code, 'PATIENT_NOT_FOUND');
    // An id that names nobody is as unknown as a number: not an empty list of invoices.
    assert.deepEqual(refusalOf(await clinic('invoice', 'list', '--patient-id', randomUUID(), '--unpaid')), {
      code: 'PATIENT_NOT_FOUND',
      message: 'No patient has this id.',
    });
    assert.deepEqual(refusalOf(await clinic('record-payment', '--invoice', 'INV-2026-999', '--amount', '1', '--method', 'cash')), {
      code: 'INVOICE_NOT_FOUND',
      message: 'No invoice has the number INV-2026-999.',
    });
    assert.equal((await clinic('record-payment', '--amount', '1', '--method', 'cash')).code, 2);
    // Neither an id nor a number: checked as the id it claims to be.
    const notAnId = await clinic('invoice', 'create', '--patient-id', 'Ada', '--total', '1');
    assert.equal(notAnId.code, 1);
    assert.deepEqual(
      (JSON.parse(notAnId.stderr) as { detail: { type: string; loc: unknown }[] }).detail.map((i) => [i.type, i.loc]),
      [['uuid_parsing', ['body', 'patient_id']]],
    );
  });
});

// How ids and the numbers on paper are read and written (decisions.md §3; clinic-api-1.1.md, "Staff references on the command line").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  appointmentSeqOf,
  creditNoteNumber,
  documentSeqOf,
  idOf,
  invoiceNumber,
  invoiceNumberOf,
  patientSeqOf,
} from '../../src/fields/human-numbers.js';

describe('the numbers staff see on paper', () => {
  it('reads a patient number as printed, in any case, with or without its zero padding', () => {
    for (const [typed, seq] of [
      ['P-000042', 42],
      ['P-42', 42],
      ['p-42', 42],
      ['P-0000000042', 42],
      ['P-1', 1],
      ['P-999999999999999', 999_999_999_999_999],
    ] as const)
      assert.equal(patientSeqOf(typed), seq, typed);
  });

  it('refuses what is not a patient number: no dash, another letter, spaces, 16 digits', () => {
    for (const typed of ['P42', 'A-42', ' P-42', 'P-42 ', 'P-', 'P-4x', 'P-1000000000000000', '42'])
      assert.equal(patientSeqOf(typed), undefined, typed);
  });

  it('reads the digits alone as a patient number only where search allows it', () => {
    assert.equal(patientSeqOf('42', { digitsAlone: true }), 42);
    assert.equal(patientSeqOf('000042', { digitsAlone: true }), 42);
    assert.equal(patientSeqOf('p-000042', { digitsAlone: true }), 42);
    assert.equal(patientSeqOf('4-2', { digitsAlone: true }), undefined);
  });

  it('reads appointment and document numbers by their own letter only', () => {
    assert.equal(appointmentSeqOf('A-000017'), 17);
    assert.equal(appointmentSeqOf('a-17'), 17);
    assert.equal(appointmentSeqOf('D-17'), undefined);
    assert.equal(documentSeqOf('D-000017'), 17);
    assert.equal(documentSeqOf('d-17'), 17);
    assert.equal(documentSeqOf('P-17'), undefined);
  });

  it('writes invoice and credit note numbers padded to six digits, per year, and reads an invoice number as stored', () => {
    assert.equal(invoiceNumber(2026, 1), 'INV-2026-000001');
    assert.equal(invoiceNumber('2026', 999_999), 'INV-2026-999999');
    // One past six digits: the number grows rather than wraps or is cut.
    assert.equal(invoiceNumber(2026, 1_000_000), 'INV-2026-1000000');
    assert.equal(creditNoteNumber(2026, 2), 'CN-2026-000002');
    assert.equal(invoiceNumberOf('inv-2026-2'), 'INV-2026-000002');
    assert.equal(invoiceNumberOf('INV-2026-000002'), 'INV-2026-000002');
    assert.equal(invoiceNumberOf('INV-26-2'), undefined);
    assert.equal(invoiceNumberOf('CN-2026-2'), undefined);
  });

  it('reads an id in any case as it is stored, in lower case, and nothing else as an id', () => {
    assert.equal(idOf('6F1C2D3E-4B5A-4C7D-8E9F-0A1B2C3D4E5F'), '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f');
    assert.equal(idOf('6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f'), '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f');
    assert.equal(idOf('6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5'), undefined);
    assert.equal(idOf('P-000042'), undefined);
  });
});

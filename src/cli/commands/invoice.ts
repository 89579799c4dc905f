import { invoiceItemOf } from '../../domain/invoices/present-invoice.js';
import type { Command } from 'commander';
import { patientNames, readDeskInvoice } from '../../domain/desk/desk-records.js';
import { readDeskContext } from '../../domain/desk/desk-context.js';
import { CREATE_INVOICE, withIssuedDateAsMidnight } from '../../domain/invoices/create-invoice.js';
import { CREATE_CREDIT_NOTE } from '../../domain/invoices/credit-invoice.js';
import { LIST_INVOICES } from '../../domain/invoices/list-invoices.js';
import { READ_INVOICE } from '../../domain/invoices/read-invoice.js';
import { VOID_INVOICE } from '../../domain/invoices/void-invoice.js';
import { resolveInvoiceReference, resolvePatientReference } from '../../domain/references.js';
import { readPatient } from '../../domain/patients/read-patient.js';
import { CREDIT_NOTE_INPUT_FIELDS, INVOICE_INPUT_FIELDS, VOID_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { deskTable, money, patientLabel, statusText } from '../desk-format.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import { formatInvoice, issuedOn } from '../invoice-printout.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** `clinic invoice create|list|show|void|credit`: with --json, exactly what the API's invoice operations return. */
export function registerInvoiceCommands(program: Command, io: CliIo): void {
  const group = program.command('invoice').description('issue, list and show invoices');

  const create = subcommand(group, 'create', 'issue an invoice (status issued)');
  addFieldOptions(create, INVOICE_INPUT_FIELDS, {
    descriptions: { patient_id: 'the patient the invoice is for: its number (P-000042, P-42) or its id' },
  });
  addFieldOptions(create, IDEMPOTENCY_HEADER_FIELDS);
  create.action(async (options: CommonOptions & Record<string, unknown>) => {
    await runUseCaseCommand(io, options, CREATE_INVOICE, {
      request(db) {
        const body = readFieldOptions(options, INVOICE_INPUT_FIELDS, db);
        if (typeof body.patient_id === 'string') body.patient_id = resolvePatientReference(db, body.patient_id);
        return { header: readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db), body: withIssuedDateAsMidnight(body) };
      },
      // --json: the new invoice as GET /invoices lists it (1.1.0's shape of this command).
      json: invoiceItemOf,
      // For people: the printout of `invoice show`, with the patient's number and name.
      print(invoice, db) {
        const shown = readDeskInvoice(db, invoice.id);
        return formatInvoice(shown.invoice, shown.context);
      },
    });
  });

  subcommand(group, 'list', 'list invoices, newest first (same as GET /invoices)')
    .option('--patient-id <ref>', "only this patient's invoices: the patient's number (P-42) or id")
    .option('--unpaid', 'only invoices with a balance above zero')
    .action(async (options: CommonOptions & { patientId?: string; unpaid?: boolean }) => {
      let patientId: string | undefined;
      await runUseCaseCommand(io, options, LIST_INVOICES, {
        request(db) {
          patientId = options.patientId === undefined ? undefined : resolvePatientReference(db, options.patientId);
          return { query: { ...(patientId === undefined ? {} : { patient_id: patientId }), ...(options.unpaid ? { unpaid: true } : {}) } };
        },
        // Unlike the API's filter, a --patient-id that names no patient is refused, whether id or
        // number: a person who mistyped it should not read "no invoices" (readPatient: 404).
        check(page, db) {
          if (patientId !== undefined && page.items.length === 0) readPatient(db, patientId);
        },
        json: (page) => page.items,
        print({ items: invoices }, db) {
          const patients = patientNames(
            db,
            invoices.map((invoice) => invoice.patient_id),
          );
          const context = readDeskContext(db);
          return deskTable(
            [
              { header: 'Invoice' },
              { header: 'Issued' },
              { header: 'Patient', shrink: true },
              { header: 'Status' },
              { header: 'Total', align: 'right' },
              { header: 'Balance', align: 'right' },
            ],
            invoices.map((invoice) => {
              const patient = patients.get(invoice.patient_id);
              return [
                invoice.invoice_number,
                issuedOn(invoice, context.timeZone),
                patient === undefined ? '' : patientLabel(patient.patient_number, patient.first_name, patient.last_name),
                statusText(invoice.status),
                money(invoice.total, invoice.currency),
                money(invoice.balance, invoice.currency),
              ];
            }),
            'No invoices.',
          );
        },
      });
    });

  fieldArgument(
    subcommand(group, 'show', 'one invoice with its payments (as GET /invoices/{invoice_id})'),
    '<ref>',
    'the invoice: its number (INV-2026-000002, INV-2026-2) or its id',
    'invoice_id',
  ).action(async (reference: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, READ_INVOICE, {
      request: (db) => ({ path: { invoice_id: resolveInvoiceReference(db, reference) } }),
      print: (invoice, db) => formatInvoice(invoice, readDeskContext(db)),
    });
  });

  const voiding = fieldArgument(
    subcommand(group, 'void', 'void an invoice issued in error: it then owes nothing (as POST /invoices/{invoice_id}/void)'),
    '<ref>',
    'the invoice: its number (INV-2026-000002, INV-2026-2) or its id; nothing may be paid on it',
    'invoice_id',
  );
  addFieldOptions(voiding, IDEMPOTENCY_HEADER_FIELDS);
  addFieldOptions(voiding, VOID_INPUT_FIELDS).action(
    async (reference: string, options: CommonOptions & { reason?: string } & Record<string, unknown>) => {
      await runUseCaseCommand(io, options, VOID_INVOICE, {
        request: (db) => ({
          path: { invoice_id: resolveInvoiceReference(db, reference) },
          header: readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db),
          body: { reason: options.reason },
        }),
        json: ({ invoice }) => invoice,
        print: ({ invoice }, db) => `Invoice ${invoice.invoice_number} is void.\n\n${formatInvoice(invoice, readDeskContext(db))}`,
      });
    },
  );

  const credit = fieldArgument(
    subcommand(group, 'credit', 'lower what an invoice asks with a credit note (as POST /invoices/{invoice_id}/credit-notes)'),
    '<ref>',
    'the invoice: its number (INV-2026-000002, INV-2026-2) or its id',
    'invoice_id',
  );
  addFieldOptions(credit, IDEMPOTENCY_HEADER_FIELDS);
  addFieldOptions(credit, CREDIT_NOTE_INPUT_FIELDS, {
    descriptions: { amount: 'how much less the invoice asks, at most its balance; digits and a dot, e.g. 15.00' },
  }).action(async (reference: string, options: CommonOptions & Record<string, unknown>) => {
    await runUseCaseCommand(io, options, CREATE_CREDIT_NOTE, {
      request: (db) => ({
        path: { invoice_id: resolveInvoiceReference(db, reference) },
        header: readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db),
        body: readFieldOptions(options, CREDIT_NOTE_INPUT_FIELDS, db),
      }),
      print(invoice, db) {
        const note = invoice.credit_notes.at(-1)!;
        const said = `Credit note ${note.credit_note_number}: ${invoice.invoice_number} asks ${money(note.amount, invoice.currency)} less.`;
        return `${said}\n\n${formatInvoice(invoice, readDeskContext(db))}`;
      },
    });
  });
}

import type { Command } from 'commander';
import { listDeskInvoices, readDeskInvoice } from '../../domain/desk/desk-records.js';
import { createInvoice } from '../../domain/invoices/create-invoice.js';
import { resolvePatientReference } from '../../domain/references.js';
import { INVOICE_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { withDatabase } from '../database.js';
import { deskTable, invoiceState, money, patientLabel } from '../desk-format.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import { formatInvoice, issuedOn } from '../invoice-printout.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** `clinic invoice create|list|show`: with --json, exactly what GET /invoices and GET /invoices/{invoice_id} return. */
export function registerInvoiceCommands(program: Command, io: CliIo): void {
  const group = program.command('invoice').description('issue, list and show invoices');

  const create = subcommand(group, 'create', 'issue an invoice (status issued)');
  addFieldOptions(create, INVOICE_INPUT_FIELDS, {
    descriptions: { patient_id: 'the patient the invoice is for: its number (P-000042, P-42) or its id' },
  });
  create.action(async (options: CommonOptions & Record<string, unknown>) => {
    await withDatabase(
      options,
      (db) => {
        const body = readFieldOptions(options, INVOICE_INPUT_FIELDS);
        if (typeof body.patient_id === 'string') body.patient_id = resolvePatientReference(db, body.patient_id);
        const invoice = createInvoice(db, body);
        // For people: the printout of `invoice show`, with the patient's number and name.
        emit(io, options, invoice, () => {
          const shown = readDeskInvoice(db, invoice.id);
          return formatInvoice(shown.invoice, shown.context);
        });
      },
      { module: 'billing' },
    );
  });

  subcommand(group, 'list', 'list invoices, newest first (same as GET /invoices)')
    .option('--patient-id <ref>', "only this patient's invoices: the patient's number (P-42) or id")
    .option('--unpaid', 'only invoices with a balance above zero')
    .action(async (options: CommonOptions & { patientId?: string; unpaid?: boolean }) => {
      await withDatabase(
        options,
        (db) => {
          const { invoices, patients, context } = listDeskInvoices(db, {
            ...(options.patientId === undefined ? {} : { patient: options.patientId }),
            ...(options.unpaid ? { unpaid: true } : {}),
          });
          emit(io, options, invoices, () =>
            deskTable(
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
                  invoiceState(invoice.status),
                  money(invoice.total, invoice.currency),
                  money(invoice.balance, invoice.currency),
                ];
              }),
              'No invoices.',
            ),
          );
        },
        { module: 'billing' },
      );
    });

  fieldArgument(
    subcommand(group, 'show', 'one invoice with its payments (as GET /invoices/{invoice_id})'),
    '<ref>',
    'the invoice: its number (INV-2026-000002, INV-2026-2) or its id',
    'invoice_id',
  ).action(async (reference: string, options: CommonOptions) => {
    await withDatabase(
      options,
      (db) => {
        const { invoice, context } = readDeskInvoice(db, reference);
        emit(io, options, invoice, () => formatInvoice(invoice, context));
      },
      { module: 'billing' },
    );
  });
}

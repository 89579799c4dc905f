import type { Command } from 'commander';
import { createInvoice } from '../../domain/invoices/create-invoice.js';
import { listInvoices } from '../../domain/invoices/list-invoices.js';
import { resolvePatientReference } from '../../domain/references.js';
import type { Invoice } from '../../domain/invoices/present-invoice.js';
import { INVOICE_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { withDatabase } from '../database.js';
import { addFieldOptions, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { emit, formatRecord, formatTable, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** Money for people: two decimals, as on paper. */
function forPeople(invoice: Invoice): Record<string, unknown> {
  return {
    ...invoice,
    total: invoice.total.toFixed(2),
    amount_paid: invoice.amount_paid.toFixed(2),
    balance: invoice.balance.toFixed(2),
  };
}

/** `clinic invoice create|list`: with --json, Invoice items exactly as GET /invoices returns them. */
export function registerInvoiceCommands(program: Command, io: CliIo): void {
  const group = program.command('invoice').description('issue and list invoices');

  addFieldOptions(subcommand(group, 'create', 'issue an invoice (status issued)'), INVOICE_INPUT_FIELDS).action(
    async (options: CommonOptions & Record<string, unknown>) => {
      await withDatabase(
        options,
        (db) => {
          const body = readFieldOptions(options, INVOICE_INPUT_FIELDS);
          if (typeof body.patient_id === 'string') body.patient_id = resolvePatientReference(db, body.patient_id);
          const invoice = createInvoice(db, body);
          emit(io, options, invoice, () => formatRecord(forPeople(invoice)));
        },
        { module: 'billing' },
      );
    },
  );

  subcommand(group, 'list', 'list invoices, newest first (same as GET /invoices)')
    .option('--patient-id <ref>', "only this patient's invoices: the patient's id or number (P-42)")
    .option('--unpaid', 'only invoices with a balance above zero')
    .action(async (options: CommonOptions & { patientId?: string; unpaid?: boolean }) => {
      await withDatabase(
        options,
        (db) => {
          const invoices = listInvoices(db, {
            ...(options.patientId === undefined ? {} : { patient_id: resolvePatientReference(db, options.patientId) }),
            ...(options.unpaid ? { unpaid: true } : {}),
          });
          emit(io, options, invoices, () =>
            formatTable(invoices.map(forPeople), [
              'id',
              'invoice_number',
              'patient_id',
              'status',
              'currency',
              'total',
              'amount_paid',
              'balance',
              'issued_at',
            ]),
          );
        },
        { module: 'billing' },
      );
    });
}

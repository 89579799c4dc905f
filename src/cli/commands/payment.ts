import type { Command } from 'commander';
import { RECORD_PAYMENT } from '../../domain/payments/record-payment.js';
import { resolveInvoiceReference } from '../../domain/references.js';
import { PAYMENT_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { addFieldOptions, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { readDeskInvoice } from '../../domain/desk/desk-records.js';
import { money } from '../desk-format.js';
import type { CommonOptions } from '../output.js';
import { formatInvoice } from '../invoice-printout.js';
import { subcommand } from '../program.js';
import { runUseCaseCommand } from '../use-case-command.js';

interface RecordPaymentOptions extends CommonOptions, Record<string, unknown> {
  invoiceId?: string;
  invoice?: string;
  idempotencyKey?: string;
}

/**
 * `clinic record-payment`: the use case POST /invoices/{invoice_id}/payments mounts, so the
 * CLI and the server paying one invoice at once can never overpay it, and an Idempotency-Key
 * used here replays over HTTP (and the other way round).
 */
export function registerPaymentCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'record-payment', 'record a payment against an invoice (same rules as the API)')
    .option('--invoice <ref>', 'the invoice paid: its number (INV-2026-000002, INV-2026-2) or its id (required: this or --invoice-id)')
    .option('--invoice-id <ref>', 'the same as --invoice')
    .option('--idempotency-key <key>', '1-255 visible ASCII characters; repeating the command with it records nothing twice');
  addFieldOptions(command, PAYMENT_INPUT_FIELDS).action(async (options: RecordPaymentOptions, actionCommand: Command) => {
    // Two names for one option: given both, a payment could go to the invoice the person did not mean.
    if (options.invoice !== undefined && options.invoiceId !== undefined) {
      return actionCommand.error('error: give the invoice once: --invoice or --invoice-id, not both', { exitCode: 2 });
    }
    const reference = options.invoice ?? options.invoiceId;
    if (reference === undefined) return actionCommand.error("error: required option '--invoice <ref>' not specified", { exitCode: 2 });
    await runUseCaseCommand(io, options, RECORD_PAYMENT, {
      request: (db) => ({
        path: { invoice_id: resolveInvoiceReference(db, reference) },
        header: options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey },
        body: readFieldOptions(options, PAYMENT_INPUT_FIELDS),
      }),
      json: ({ payment }) => payment,
      print({ payment, replayed }, db) {
        const { invoice, context } = readDeskInvoice(db, payment.invoice_id);
        const said = replayed
          ? 'This key was already used for this payment: nothing new was recorded.'
          : `Recorded ${money(payment.amount, payment.currency)} ${payment.method} on ${invoice.invoice_number}.`;
        return `${said}\n\n${formatInvoice(invoice, context)}`;
      },
    });
  });
}

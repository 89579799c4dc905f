import type { Command } from 'commander';
import { RECORD_PAYMENT } from '../../domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../domain/payments/refund-payment.js';
import { paymentsOfInvoiceReference, resolveInvoiceReference } from '../../domain/references.js';
import { errors } from '../../errors.js';
import { PAYMENT_INPUT_FIELDS, REFUND_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { centsToNumber } from '../../domain/validation/decimal.js';
import { InvalidArgumentError } from 'commander';
import { clockTime, localShortDate } from '../desk-format.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { addFieldOptions, labelField, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { readDeskInvoice } from '../../domain/desk/desk-records.js';
import { money } from '../desk-format.js';
import type { CommonOptions } from '../output.js';
import { formatInvoice } from '../invoice-printout.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

interface RecordPaymentOptions extends CommonOptions, Record<string, unknown> {
  invoiceId?: string;
  invoice?: string;
}

/**
 * `clinic record-payment`: the use case POST /invoices/{invoice_id}/payments mounts, so the
 * CLI and the server paying one invoice at once can never overpay it, and an Idempotency-Key
 * used here replays over HTTP (and the other way round).
 */
export function registerPaymentCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'record-payment', 'record a payment against an invoice (same rules as the API)')
    .option('--invoice <ref>', 'the invoice paid: its number (INV-2026-000002, INV-2026-2) or its id (required: this or --invoice-id)')
    .option('--invoice-id <ref>', 'the same as --invoice');
  addFieldOptions(command, IDEMPOTENCY_HEADER_FIELDS);
  addFieldOptions(command, PAYMENT_INPUT_FIELDS).action(async (options: RecordPaymentOptions, actionCommand: Command) => {
    // Two names for one option: given both, a payment could go to the invoice the person did not mean.
    if (options.invoice !== undefined && options.invoiceId !== undefined) {
      return actionCommand.error('error: give the invoice once: --invoice or --invoice-id, not both', { exitCode: 2 });
    }
    const reference = options.invoice ?? options.invoiceId;
    if (reference === undefined) return actionCommand.error("error: required option '--invoice <ref>' not specified", { exitCode: 2 });
    labelField(actionCommand, 'invoice_id', options.invoice === undefined ? '--invoice-id' : '--invoice');
    await runUseCaseCommand(io, options, RECORD_PAYMENT, {
      request: (db) => ({
        path: { invoice_id: resolveInvoiceReference(db, reference) },
        header: readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db),
        body: readFieldOptions(options, PAYMENT_INPUT_FIELDS, db),
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

  registerRefundCommand(program, io);
}

/** `--payment 2`: a position on the invoice, 1 or more. */
function parsePosition(text: string): number {
  if (!/^[1-9]\d{0,5}$/.test(text))
    throw new InvalidArgumentError("expected the payment's number on the invoice (1, 2, …) as `invoice show` lists them");
  return Number(text);
}

interface RefundOptions extends CommonOptions, Record<string, unknown> {
  invoice: string;
  payment?: number;
  goodwill?: boolean;
}

/** The refund's fields given as `--field <value>`: all but `goodwill`, a flag at the desk. */
const REFUND_VALUE_FIELDS = REFUND_INPUT_FIELDS.filter((spec) => spec.name !== 'goodwill');

/**
 * `clinic refund --invoice REF [--payment N]`: POST /payments/{payment_id}/refunds for payment N
 * of the invoice, numbered as `invoice show` lists them. N may be left out when the invoice has
 * one payment; with more, leaving it out is a usage error (exit 2) that lists them.
 */
function registerRefundCommand(program: Command, io: CliIo): void {
  const command = subcommand(program, 'refund', 'give back part or all of a payment (same rules as POST /payments/{id}/refunds)')
    .requiredOption('--invoice <ref>', 'the invoice paid: its number (INV-2026-000002, INV-2026-2) or its id')
    .option(
      '--payment <n>',
      'which of its payments, numbered as `invoice show` lists them (needed when it has more than one)',
      parsePosition,
    );
  addFieldOptions(command, IDEMPOTENCY_HEADER_FIELDS);
  addFieldOptions(command, REFUND_VALUE_FIELDS)
    .option('--goodwill', 'goodwill: a credit note of the same amount and reason comes with it, so a paid invoice stays paid')
    .action(async (options: RefundOptions, actionCommand: Command) => {
      let position = 0;
      let invoiceNumber = '';
      await runUseCaseCommand(io, options, REFUND_PAYMENT, {
        request(db) {
          const found = paymentsOfInvoiceReference(db, options.invoice);
          invoiceNumber = found.invoiceNumber;
          const { payments } = found;
          if (payments.length === 0) throw errors.paymentNotFound(`Invoice ${invoiceNumber} has no payments to refund.`);
          if (options.payment === undefined && payments.length > 1) {
            const timeZone = clinicTimeZone(db);
            const listed = payments
              .map(
                (payment, index) =>
                  `  ${index + 1}  ${localShortDate(payment.created_at, timeZone)} ${clockTime(payment.created_at, timeZone)}  ${payment.method}  ${money(centsToNumber(payment.amount_cents), null)}`,
              )
              .join('\n');
            actionCommand.error(`error: ${invoiceNumber} has ${payments.length} payments: say which with --payment N\n${listed}`, {
              exitCode: 2,
            });
          }
          position = options.payment ?? 1;
          const payment = payments[position - 1];
          if (payment === undefined) {
            throw errors.paymentNotFound(`Invoice ${invoiceNumber} has no payment ${position}: it has ${payments.length}.`);
          }
          return {
            path: { payment_id: payment.id },
            header: readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db),
            body: { ...readFieldOptions(options, REFUND_VALUE_FIELDS, db), ...(options.goodwill ? { goodwill: true } : {}) },
          };
        },
        json: ({ refund }) => refund,
        print({ refund, replayed }, db) {
          const { invoice, context } = readDeskInvoice(db, refund.invoice_id);
          const goodwill =
            refund.credit_note === null
              ? ''
              : `\nAs goodwill: credit note ${refund.credit_note.credit_note_number}, so the invoice asks as much less.`;
          const said = replayed
            ? 'This key was already used for this refund: nothing new was refunded.'
            : `Refunded ${money(refund.amount, refund.currency)} ${refund.method} of payment ${position} on ${invoiceNumber}.${goodwill}`;
          return `${said}\n\n${formatInvoice(invoice, context)}`;
        },
      });
    });
}

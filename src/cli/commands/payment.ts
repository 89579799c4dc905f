import type { Command } from 'commander';
import { recordPayment } from '../../domain/payments/record-payment.js';
import { PAYMENT_INPUT_FIELDS } from '../../fields/billing-fields.js';
import { withDatabase } from '../database.js';
import { addFieldOptions, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { emit, formatRecord, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

interface RecordPaymentOptions extends CommonOptions, Record<string, unknown> {
  invoiceId: string;
  idempotencyKey?: string;
}

/**
 * `clinic record-payment`: the very function POST /invoices/{invoice_id}/payments calls, so the
 * CLI and the server paying one invoice at once can never overpay it, and an Idempotency-Key
 * used here replays over HTTP (and the other way round).
 */
export function registerPaymentCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'record-payment', 'record a payment against an invoice (same rules as the API)')
    .requiredOption('--invoice-id <id>', 'the invoice paid')
    .option('--idempotency-key <key>', '1-255 visible ASCII characters; repeating the command with it records nothing twice');
  addFieldOptions(command, PAYMENT_INPUT_FIELDS).action(async (options: RecordPaymentOptions) => {
    await withDatabase(
      options,
      (db) => {
        const { payment, replayed } = recordPayment(db, {
          path: { invoice_id: options.invoiceId },
          headers: options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey },
          body: readFieldOptions(options, PAYMENT_INPUT_FIELDS),
        });
        emit(
          io,
          options,
          payment,
          () => `${formatRecord(payment)}${replayed ? 'This key was already used for this payment: nothing new was recorded.\n' : ''}`,
        );
      },
      { module: 'payments' },
    );
  });
}

import type { Command } from 'commander';
import { DAY_REPORT, type DayReportResult } from '../../domain/desk/day-report.js';
import { PAYMENT_METHOD_KEYS } from '../../fields/billing-fields.js';
import { calendarDay, clockTime, deskTable, heading, money } from '../desk-format.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../program.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** `clinic report day` for people: the day's payments, then the totals to count the drawer against. */
function formatDayReport({ report, otherCurrencies }: DayReportResult): string {
  const { currency, time_zone: timeZone } = report;
  const payments = deskTable(
    [
      { header: 'Time' },
      { header: 'Invoice' },
      { header: 'Patient', shrink: true },
      { header: 'Method' },
      { header: 'Amount', align: 'right' },
    ],
    report.payments.map((payment) => [
      clockTime(payment.created_at, timeZone),
      payment.invoice_number,
      `${payment.patient_number} ${payment.patient_name}`,
      payment.method,
      money(payment.amount, currency),
    ]),
    'No payments.',
  );
  const totals = deskTable(
    [{ header: 'Method' }, { header: 'Amount', align: 'right' }],
    [...PAYMENT_METHOD_KEYS.map((method) => [method, money(report.totals[method], currency)]), ['total', money(report.total, currency)]],
  );
  const apart =
    otherCurrencies.length === 0
      ? ''
      : `\n${heading(`Not in the totals: paid in another currency than ${currency}`)}${deskTable(
          [
            { header: 'Time' },
            { header: 'Invoice' },
            { header: 'Patient', shrink: true },
            { header: 'Method' },
            { header: 'Amount', align: 'right' },
          ],
          otherCurrencies.map((payment) => [
            clockTime(payment.created_at, timeZone),
            payment.invoice_number,
            `${payment.patient_number} ${payment.patient_name}`,
            payment.method,
            money(payment.amount, payment.currency),
          ]),
        )}`;
  return `${heading(`Payments ${calendarDay(report.date)}  (times in ${timeZone})`)}${payments}\n${heading('Totals')}${totals}${apart}`;
}

/** `clinic report day`: the end-of-day cash count (billing module). */
export function registerReportCommands(program: Command, io: CliIo): void {
  const group = program.command('report').description('reports for the front desk');
  subcommand(group, 'day', "the end-of-day cash count: the clinic day's payments, totals per method and overall")
    .option('--date <day>', 'the clinic day: today or a date like 2026-11-23 (default: today)')
    .action(async (options: CommonOptions & { date?: string }) => {
      await runUseCaseCommand(io, options, DAY_REPORT, {
        request: () => ({ query: options.date === undefined ? {} : { date: options.date } }),
        json: (result) => result.report,
        print: (result) => formatDayReport(result),
      });
    });
}

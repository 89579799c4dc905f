import type { Command } from 'commander';
import { LIST_NOTIFICATIONS } from '../../domain/notifications/list-notifications.js';
import { NOTIFICATION_STATUSES } from '../../fields/notification-fields.js';
import { clockTime, deskTable, localShortDate, patientLabel } from '../desk-format.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** `clinic notifications list`: the outbox of patient notifications and how delivery went. */
export function registerNotificationCommands(program: Command, io: CliIo): void {
  const group = program.command('notifications').description('patient notifications (the outbox)');
  subcommand(group, 'list', 'list notifications, oldest first')
    .option('--status <status>', `only rows in this status: ${NOTIFICATION_STATUSES.join(', ')}`)
    .action(async (options: CommonOptions & { status?: string }) => {
      await runUseCaseCommand(io, options, LIST_NOTIFICATIONS, {
        request: () => ({ query: { status: options.status } }),
        json: ({ notifications }) => notifications,
        print: ({ notifications, patients, invoiceNumbers, context }) => {
          // `23.11.2026 14:00`, clinic time: a sent row's status carries when it went, so the table fits 100 columns.
          const when = (iso: string) => `${localShortDate(iso, context.timeZone)} ${clockTime(iso, context.timeZone)}`;
          return deskTable(
            [
              { header: 'Queued' },
              { header: 'Patient', shrink: true },
              { header: 'Invoice' },
              { header: 'Channel' },
              { header: 'Status' },
              { header: 'Tries', align: 'right' },
              { header: 'Last error', shrink: true },
            ],
            notifications.map((notification) => {
              const patient = patients.get(notification.patient_id);
              return [
                when(notification.created_at),
                patient ? patientLabel(patient.patient_number, patient.first_name, patient.last_name) : '',
                invoiceNumbers.get(notification.invoice_id) ?? '',
                notification.channel,
                notification.sent_at === null ? notification.status : `${notification.status} ${when(notification.sent_at)}`,
                String(notification.attempts),
                notification.last_error ?? '',
              ];
            }),
            'No notifications.',
          );
        },
      });
    });
}

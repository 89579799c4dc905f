import type { Command } from 'commander';
import { listNotifications } from '../../domain/notifications/list-notifications.js';
import { NOTIFICATION_STATUSES } from '../../fields/notification-fields.js';
import { withDatabase } from '../database.js';
import type { CliIo } from '../io.js';
import { emit, formatTable, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** `clinic notifications list`: the outbox of patient notifications and how delivery went. */
export function registerNotificationCommands(program: Command, io: CliIo): void {
  const group = program.command('notifications').description('patient notifications (the outbox)');
  subcommand(group, 'list', 'list notifications, oldest first')
    .option('--status <status>', `only rows in this status: ${NOTIFICATION_STATUSES.join(', ')}`)
    .action(async (options: CommonOptions & { status?: string }) => {
      await withDatabase(options, (db) => {
        const rows = listNotifications(db, options.status === undefined ? {} : { status: options.status });
        emit(io, options, rows, () =>
          formatTable(rows, ['id', 'patient_id', 'invoice_id', 'channel', 'status', 'attempts', 'created_at', 'sent_at', 'last_error']),
        );
      });
    });
}

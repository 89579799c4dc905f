import type { Db } from '../../db/open-database.js';
import type { Mailer } from '../../domain/notifications/deliver-notifications.js';
import { sendDueReminders } from '../../domain/reminders/send-reminders.js';
import { sendSms } from '../../adapters/sms-gateway-client.js';
import type { WorkRunner } from '../../domain/use-case.js';
import type { Logger } from '../../logger.js';
import { repeatPasses, type PassLoop } from './pass-loop.js';

/**
 * Sends the reminders that are due in the background of `clinic serve` (send-reminders.ts), a pass
 * every 15 s by default, so a reminder goes within a minute of its due time. It runs with or
 * without `--smtp-url`: without a channel a reminder still ends (`skipped`, `no_channel`) rather
 * than wait unseen. The log gets ids, states and reasons, never an address or a text.
 */
export function startReminderWorker(
  db: Db,
  runner: WorkRunner,
  mailer: (Mailer & { close?(): void }) | null,
  { logger, intervalMs = 15_000 }: { logger: Logger; intervalMs?: number },
): PassLoop {
  const loop = repeatPasses(async () => {
    try {
      for (const outcome of await sendDueReminders(db, runner, { mailer, sendSms })) {
        const event = { event: `reminder_${outcome.state}`, ...outcome };
        if (outcome.state === 'failed') logger.error(event);
        else logger.info(event);
      }
    } catch (error) {
      logger.error({ event: 'reminder_pass_failed', error: error instanceof Error ? error.message : String(error) });
    }
  }, intervalMs);
  return {
    async stop() {
      await loop.stop();
      mailer?.close?.();
    },
  };
}

import type { Db } from '../../db/open-database.js';
import { sendDueReminders, type ReminderChannels } from '../../domain/reminders/send-reminders.js';
import type { WorkRunner } from '../../domain/use-case.js';
import type { Logger } from '../../logger.js';
import { repeatPasses, type PassLoop } from './pass-loop.js';

/**
 * Sends the reminders that are due in the background of `clinic serve` (send-reminders.ts), a pass
 * every 15 s by default, so a reminder goes within a minute of its due time; a pass sends until
 * nothing is due, a few at once, and stops taking more when the server stops. It runs with or
 * without `--smtp-url`: without a channel a reminder still ends (`skipped`, `no_channel`) rather
 * than wait unseen. The log gets ids, states and reasons, never an address or a text.
 */
export function startReminderWorker(
  db: Db,
  runner: WorkRunner,
  channels: ReminderChannels,
  { logger, intervalMs = 15_000 }: { logger: Logger; intervalMs?: number },
): PassLoop {
  // What was due more than a minute before this start was missed while no server ran.
  const runningSince = Date.now();
  const loop = repeatPasses(async (signal) => {
    try {
      for (const outcome of await sendDueReminders(db, runner, channels, { runningSince, signal })) {
        const event = { event: `reminder_${outcome.state}`, ...outcome };
        if (outcome.state === 'failed') logger.error(event);
        else logger.info(event);
      }
    } catch (error) {
      logger.error({ event: 'reminder_pass_failed', error: error instanceof Error ? error.message : String(error) });
    }
  }, intervalMs);
  return loop;
}

import type { Db } from '../../db/open-database.js';
import type { WorkRunner } from '../../domain/use-case.js';
import {
  deliverDueNotifications,
  DEFAULT_RETRY_POLICY,
  type NotificationChannels,
  type RetryPolicy,
} from '../../domain/notifications/deliver-notifications.js';
import type { Logger } from '../../logger.js';
import { repeatPasses } from './pass-loop.js';

/** A running delivery loop. */
export interface DeliveryWorker {
  /** Lets the pass in progress finish; no pass starts afterwards. The mailer stays open (its owner closes it). */
  stop(): Promise<void>;
}

export interface DeliveryWorkerOptions {
  logger: Logger;
  /** Pause between passes; a due row waits at most this long. */
  intervalMs?: number;
  policy?: RetryPolicy;
}

/**
 * Delivers due notifications in the background of `clinic serve`, e-mail rows through the mailer
 * and SMS rows through the clinic's gateway once one is set: a pass now, then one every
 * `intervalMs` after the previous ended (passes never overlap). A pass that throws (say,
 * the database stayed locked) is logged and the next one tries again; nothing here can reach a
 * payment, which was committed before its notification was ever read.
 */
export function startDeliveryWorker(
  db: Db,
  runner: WorkRunner,
  channels: NotificationChannels,
  options: DeliveryWorkerOptions,
): DeliveryWorker {
  const { logger, intervalMs = 2000, policy = DEFAULT_RETRY_POLICY } = options;
  const runPass = async () => {
    try {
      for (const { error: _reason, ...outcome } of await deliverDueNotifications(db, runner, channels, policy)) {
        // An SMTP reply may quote the recipient's address: the reason stays in the outbox row
        // (`clinic notifications list`), the log gets ids and counts only.
        const event = { event: `notification_${outcome.outcome}`, ...outcome };
        if (outcome.outcome === 'sent') logger.info(event);
        else logger.error(event);
      }
    } catch (error) {
      logger.error({ event: 'notification_pass_failed', error: error instanceof Error ? error.message : String(error) });
    }
  };
  return repeatPasses(runPass, intervalMs);
}

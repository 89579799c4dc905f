import { fetchReplies } from '../../adapters/sms-gateway-client.js';
import type { Db } from '../../db/open-database.js';
import { readReplies } from '../../domain/reminders/replies.js';
import type { WorkRunner } from '../../domain/use-case.js';
import type { Logger } from '../../logger.js';
import { repeatPasses, type PassLoop } from './pass-loop.js';

/**
 * Reads the replies to SMS reminders from the clinic's gateway every 60 s (interface 1.3.0):
 * outbound only, so the clinic opens no port. A pass that cannot reach the gateway is logged and
 * the next one asks again from where the last reply handled left off; each reply is handled once
 * in its own transaction (replies.ts). The log gets ids and outcomes, never a number or a text.
 */
export function startReplyWorker(
  db: Db,
  runner: WorkRunner,
  { logger, intervalMs = 60_000 }: { logger: Logger; intervalMs?: number },
): PassLoop {
  return repeatPasses(async () => {
    try {
      for (const handled of await readReplies(db, runner, fetchReplies)) {
        logger.info({ event: 'reply_handled', reply_id: handled.id, outcome: handled.outcome, appointment_id: handled.appointment_id });
      }
    } catch (error) {
      logger.error({ event: 'reply_pass_failed', error: error instanceof Error ? error.message : String(error) });
    }
  }, intervalMs);
}

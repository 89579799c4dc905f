import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/open-database.js';
import { enabledWebhookEndpoints, type WebhookEndpointRow } from '../../db/webhook-endpoints.js';
import { deliverWebhook, nextEventFor, type WebhookSender } from '../../domain/webhooks/deliver-webhooks.js';
import type { WorkRunner } from '../../domain/use-case.js';
import type { Logger } from '../../logger.js';
import type { ChangeWatch } from '../writes/change-watch.js';
import { RETRY_DELAYS_MS } from '../../domain/webhooks/retry-schedule.js';

/**
 * How long a stop waits for the attempts in flight before abandoning them: well within the 10 s
 * a stop is promised (the HTTP server's own grace runs beside it), and far longer than a receiver
 * that works needs to answer.
 */
export const STOP_GRACE_MS = 3000;

/** A running webhook delivery. */
export interface WebhookWorker {
  /**
   * Starts no more attempts, gives those in flight STOP_GRACE_MS to be answered and recorded, then
   * abandons the rest (they are made again after the next start) and stops.
   */
  stop(): Promise<void>;
}

export interface WebhookWorkerOptions {
  logger: Logger;
  /**
   * The longest the worker sleeps before reading the endpoints again: a desk command that adds,
   * enables, replays or removes one is followed within this. New events wake it at once.
   */
  rescanMs?: number;
}

/**
 * Delivers the change feed to the webhook endpoints in the background of `clinic serve`. Each
 * enabled endpoint has at most one attempt in flight, of its next event, so it gets its events one
 * at a time in seq order and the next only after a 2xx; endpoints do not wait for one another. The
 * worker reads the feed and the endpoints through the server's commit groups (so never a row that
 * is not yet committed) and records each outcome there too; it never holds a transaction while
 * sending, so no write ever waits for a receiver. Everything it needs to resume is in the
 * endpoints' rows: a restart goes on where they stand.
 */
export function startWebhookWorker(
  db: Db,
  runner: WorkRunner,
  changes: ChangeWatch,
  sender: WebhookSender,
  options: WebhookWorkerOptions,
): WebhookWorker {
  const { logger, rescanMs = 1000 } = options;
  const stopping = new AbortController();
  // Aborts the sends still in flight once the stop's grace is over.
  const abandon = new AbortController();
  const inFlight = new Map<string, Promise<void>>();
  /**
   * Endpoints whose last outcome could not be recorded (a full disk, a lock held past the wait):
   * their row still says "due", so they wait here instead, the first retry's delay, rather than
   * have the same event sent again at once for as long as the disk stays full.
   */
  const notBefore = new Map<string, number>();
  // A kick while a pass runs (an attempt ended) is remembered, so the loop passes again at once.
  let kicked = false;
  let wake: (() => void) | undefined;
  const kick = () => {
    kicked = true;
    wake?.();
  };

  const attempt = (endpoint: WebhookEndpointRow, event: NonNullable<ReturnType<typeof nextEventFor>>) => {
    const delivery = deliverWebhook(db, runner, sender, endpoint, event, abandon.signal)
      .then((outcome) => {
        if (outcome.outcome === 'delivered' || outcome.outcome === 'superseded' || outcome.outcome === 'abandoned') return;
        logger.error({ event: `webhook_${outcome.outcome}`, ...outcome });
      })
      .catch((error: unknown) => {
        // Recording the outcome failed (the database stayed locked, the disk is full): the row
        // still says what it said, so the same event is tried again, after the first retry's delay.
        notBefore.set(endpoint.id, Date.now() + RETRY_DELAYS_MS[0]);
        logger.error({ event: 'webhook_record_failed', endpoint_id: endpoint.id, seq: event.seq, error: String(error) });
      })
      .finally(() => {
        inFlight.delete(endpoint.id);
        kick();
      });
    inFlight.set(endpoint.id, delivery);
  };

  /** Starts the attempts that are due; gives how many endpoints are enabled and how long until the next retry is due (ms). */
  const pass = async (): Promise<{ enabled: number; nextDue: number | undefined }> => {
    const now = Date.now();
    let nextDue: number | undefined;
    let enabled = 0;
    const due = await runner.run('read', () =>
      enabledWebhookEndpoints(db).flatMap((endpoint) => {
        enabled++;
        if (inFlight.has(endpoint.id)) return [];
        const recordedRetryAt = endpoint.next_attempt_at === null ? now : Date.parse(endpoint.next_attempt_at);
        const retryAt = Math.max(recordedRetryAt, notBefore.get(endpoint.id) ?? now);
        if (retryAt > now) {
          nextDue = Math.min(nextDue ?? Infinity, retryAt - now);
          return [];
        }
        const event = nextEventFor(db, endpoint);
        return event === undefined ? [] : [{ endpoint, event }];
      }),
    );
    // A stop while the read waited for a commit group starts nothing more.
    if (stopping.signal.aborted) return { enabled, nextDue };
    for (const { endpoint, event } of due) {
      notBefore.delete(endpoint.id);
      attempt(endpoint, event);
    }
    return { enabled, nextDue };
  };

  const loop = async () => {
    while (!stopping.signal.aborted) {
      kicked = false;
      // The feed's last seq before the pass: an event committed after it ends the wait below.
      const seenSeq = changes.lastSeq();
      let found: { enabled: number; nextDue: number | undefined } = { enabled: 0, nextDue: undefined };
      try {
        found = await pass();
      } catch (error) {
        logger.error({ event: 'webhook_pass_failed', error: error instanceof Error ? error.message : String(error) });
      }
      if (kicked) continue;
      // Until an event is committed, an attempt ends, a retry is due, the rescan, or the stop.
      const iteration = new AbortController();
      wake = () => iteration.abort();
      const waitMs = Math.min(rescanMs, found.nextDue ?? rescanMs);
      // Without an endpoint there is nothing to wake for but the rescan; a closed watch (the
      // HTTP server stopped first) would answer at once: sleep instead.
      // (stop() kicks, which ends this wait too.)
      if (found.enabled === 0 || changes.closed) await sleep(waitMs, undefined, { signal: iteration.signal }).catch(() => undefined);
      else await changes.after(seenSeq, waitMs, iteration.signal);
      wake = undefined;
    }
  };

  const running = loop();
  return {
    async stop() {
      stopping.abort();
      kick();
      await running;
      // A receiver that answers within the grace has its event recorded as delivered, so a
      // restart does not send it again; one that takes longer gets it again after the restart.
      const settled = Promise.all(inFlight.values());
      await Promise.race([settled, sleep(STOP_GRACE_MS, undefined, { ref: false })]);
      abandon.abort();
      await settled;
    },
  };
}

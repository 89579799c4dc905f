import { changeEventsAfter } from '../../db/change-events.js';
import type { Db } from '../../db/open-database.js';
import { recordWebhookDelivered, recordWebhookFailure, type WebhookEndpointRow } from '../../db/webhook-endpoints.js';
import { presentChangeEvent } from '../changes/list-change-events.js';
import type { ChangeEvent } from '../changes/change-event.js';
import type { WorkRunner } from '../use-case.js';
import { afterFailure } from './retry-schedule.js';
import { webhookHeaders } from './signature.js';
import { endpointTypes } from './webhook-endpoints.js';

/** One POST of one event to one endpoint. */
export interface WebhookPost {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends a webhook and gives the answer's status and the start of its body; rejects when there was no answer. */
export interface WebhookSender {
  send(post: WebhookPost, signal: AbortSignal): Promise<{ status: number; body: string }>;
}

/** What one attempt came to (ids, seq and status only: fit for the log). */
export interface WebhookAttempt {
  endpoint_id: string;
  seq: number;
  outcome: 'delivered' | 'retry' | 'disabled' | 'superseded' | 'abandoned';
  status?: number;
  error?: string;
  next_attempt_at?: string;
}

/** The endpoint's next event: the first after its position, of its types; undefined when it has them all. */
export function nextEventFor(db: Db, endpoint: WebhookEndpointRow): ChangeEvent | undefined {
  const [row] = changeEventsAfter(db, endpoint.position, 1, endpointTypes(endpoint));
  return row === undefined ? undefined : presentChangeEvent(row);
}

const MAX_ERROR_LENGTH = 300;

/** Why an attempt failed, in a line for `webhook list`: the status and the start of the answer, or what went wrong. */
function describeFailure(answer: { status: number; body: string } | undefined, error: unknown): string {
  if (answer !== undefined) {
    const start = answer.body.replace(/[^\x20-\x7e]+/g, ' ').trim();
    const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : '';
    const text = `HTTP ${answer.status}${redirect}${start === '' ? '' : `: ${start}`}`;
    return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ECONNRESET') return 'connection reset before an answer';
  return (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
}

/**
 * Sends `event` to `endpoint` once and records what came of it, in the endpoint's row: a 2xx moves
 * it past the event; anything else schedules the next attempt (or disables it: 410, 3 days of
 * failure). The row is only changed where the attempt found it: a desk command that moved it
 * meanwhile (replay, enable, remove) wins. An attempt abandoned because the server stops records
 * nothing: the event is sent again after the restart. Sending happens outside any transaction.
 */
export async function deliverWebhook(
  db: Db,
  runner: WorkRunner,
  sender: WebhookSender,
  endpoint: WebhookEndpointRow,
  event: ChangeEvent,
  signal: AbortSignal,
  now: () => Date = () => new Date(),
): Promise<WebhookAttempt> {
  const base = { endpoint_id: endpoint.id, seq: event.seq };
  const body = JSON.stringify(event);
  const headers = webhookHeaders(endpoint.secret, event.id, Math.floor(now().getTime() / 1000), body);
  let answer: { status: number; body: string } | undefined;
  let failure: unknown;
  try {
    answer = await sender.send({ url: endpoint.url, headers, body }, signal);
  } catch (error) {
    if (signal.aborted) return { ...base, outcome: 'abandoned' };
    failure = error;
  }
  const at = now();
  if (answer !== undefined && answer.status >= 200 && answer.status < 300) {
    const recorded = await runner.run('write', () =>
      recordWebhookDelivered(db, { id: endpoint.id, position: endpoint.position, seq: event.seq, at: at.toISOString() }),
    );
    return { ...base, outcome: recorded ? 'delivered' : 'superseded', status: answer.status };
  }
  const error = describeFailure(answer, failure);
  const failingSince = endpoint.failing_since ?? at.toISOString();
  const failedAttempts = endpoint.failed_attempts + 1;
  const next = afterFailure(failedAttempts, new Date(failingSince), at, answer?.status);
  const recorded = await runner.run('write', () =>
    recordWebhookFailure(db, {
      id: endpoint.id,
      position: endpoint.position,
      previous_failed_attempts: endpoint.failed_attempts,
      previous_failing_since: endpoint.failing_since,
      failing_since: failingSince,
      failed_attempts: failedAttempts,
      next_attempt_at: next.disable ? null : next.retryAt.toISOString(),
      last_error: next.disable ? `${error}; disabled: ${next.why}` : error,
      state: next.disable ? 'disabled' : 'enabled',
      disabled_at: next.disable ? at.toISOString() : null,
    }),
  );
  const status = answer === undefined ? {} : { status: answer.status };
  if (!recorded) return { ...base, outcome: 'superseded', ...status, error };
  return next.disable
    ? { ...base, outcome: 'disabled', ...status, error: `${error}; ${next.why}` }
    : { ...base, outcome: 'retry', ...status, error, next_attempt_at: next.retryAt.toISOString() };
}

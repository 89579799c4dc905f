import { preparedFor, type Db } from './open-database.js';

/** A `webhook_endpoints` row. */
export interface WebhookEndpointRow {
  id: string;
  name: string;
  url: string;
  /** JSON array of event types, or null for every type. */
  types: string | null;
  secret: string;
  state: 'enabled' | 'disabled';
  /** Every event up to this seq is delivered or not of its types. */
  position: number;
  last_delivered_seq: number | null;
  last_delivered_at: string | null;
  failing_since: string | null;
  failed_attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  disabled_at: string | null;
  created_at: string;
  /** The lowest position it ever held; null for an endpoint added before 1.3.0. */
  first_position: number | null;
}

/** What is kept of an endpoint, listed or removed, to say which events about a patient it may have had. */
export interface EndpointReach {
  id: string;
  name: string;
  url: string;
  types: string | null;
  first_position: number | null;
  position: number;
  created_at: string;
}

/** The outcome of a failed attempt, as the endpoint keeps it. */
export interface WebhookFailure {
  id: string;
  /**
   * Where the row stood when the attempt started (its position and run of failures): a row the
   * desk changed meanwhile (replay, enable, remove) is left as the desk left it.
   */
  position: number;
  previous_failed_attempts: number;
  previous_failing_since: string | null;
  failing_since: string;
  failed_attempts: number;
  next_attempt_at: string | null;
  last_error: string;
  state: 'enabled' | 'disabled';
  disabled_at: string | null;
}

const COLUMNS = `id, name, url, types, secret, state, position, last_delivered_seq, last_delivered_at, failing_since,
  failed_attempts, next_attempt_at, last_error, disabled_at, created_at, first_position`;

/** What a changed row's failure columns become when a run of failures is over (a delivery, enable, replay). */
const NO_FAILURES = 'failing_since = NULL, failed_attempts = 0, next_attempt_at = NULL';

const statements = preparedFor((db) => ({
  insert: db.prepare<WebhookEndpointRow>(
    `INSERT INTO webhook_endpoints (${COLUMNS})
     VALUES (@id, @name, @url, @types, @secret, @state, @position, @last_delivered_seq, @last_delivered_at, @failing_since,
             @failed_attempts, @next_attempt_at, @last_error, @disabled_at, @created_at, @first_position)`,
  ),
  byId: db.prepare<[string], WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ?`),
  byName: db.prepare<[string], WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE name = ?`),
  all: db.prepare<[], WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`),
  enabled: db.prepare<[], WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE state = 'enabled' ORDER BY created_at, id`),
  delivered: db.prepare<{ id: string; position: number; seq: number; at: string }>(
    `UPDATE webhook_endpoints
        SET position = @seq, last_delivered_seq = @seq, last_delivered_at = @at, last_error = NULL, ${NO_FAILURES}
      WHERE id = @id AND position = @position AND state = 'enabled'`,
  ),
  failed: db.prepare<WebhookFailure>(
    `UPDATE webhook_endpoints
        SET failing_since = @failing_since, failed_attempts = @failed_attempts, next_attempt_at = @next_attempt_at,
            last_error = @last_error, state = @state, disabled_at = @disabled_at
      WHERE id = @id AND position = @position AND state = 'enabled'
        AND failed_attempts = @previous_failed_attempts AND failing_since IS @previous_failing_since`,
  ),
  enable: db.prepare<[string]>(`UPDATE webhook_endpoints SET state = 'enabled', disabled_at = NULL, ${NO_FAILURES} WHERE id = ?`),
  replay: db.prepare<{ position: number; id: string }>(
    `UPDATE webhook_endpoints SET position = @position, first_position = min(first_position, @position), ${NO_FAILURES} WHERE id = @id`,
  ),
  keepRemoved: db.prepare<{ id: string; removed_at: string }>(
    `INSERT INTO removed_webhook_endpoints (id, name, url, types, first_position, position, created_at, removed_at)
     SELECT id, name, url, types, first_position, position, created_at, @removed_at FROM webhook_endpoints WHERE id = @id`,
  ),
  remove: db.prepare<[string]>('DELETE FROM webhook_endpoints WHERE id = ?'),
  reaches: db.prepare<[], EndpointReach>(
    `SELECT id, name, url, types, first_position, position, created_at FROM webhook_endpoints
     UNION ALL
     SELECT id, name, url, types, first_position, position, created_at FROM removed_webhook_endpoints
     ORDER BY created_at, id`,
  ),
}));

export function insertWebhookEndpoint(db: Db, row: WebhookEndpointRow): void {
  statements(db).insert.run(row);
}

export function findWebhookEndpoint(db: Db, id: string): WebhookEndpointRow | undefined {
  return statements(db).byId.get(id);
}

export function findWebhookEndpointByName(db: Db, name: string): WebhookEndpointRow | undefined {
  return statements(db).byName.get(name);
}

/** Every endpoint, oldest first. */
export function listWebhookEndpointRows(db: Db): WebhookEndpointRow[] {
  return statements(db).all.all();
}

/** The endpoints that get deliveries. */
export function enabledWebhookEndpoints(db: Db): WebhookEndpointRow[] {
  return statements(db).enabled.all();
}

/**
 * Records that the event `seq` was answered 2xx: the endpoint moves past it. Nothing changes (and
 * false is returned) when the row moved meanwhile (a replay or enable from the desk, a removal).
 */
export function recordWebhookDelivered(db: Db, delivery: { id: string; position: number; seq: number; at: string }): boolean {
  return statements(db).delivered.run(delivery).changes === 1;
}

/** Records a failed attempt, unless the row moved meanwhile. */
export function recordWebhookFailure(db: Db, failure: WebhookFailure): boolean {
  return statements(db).failed.run(failure).changes === 1;
}

/** Enables an endpoint where it stands: its next attempt is due at once. */
export function enableWebhookEndpoint(db: Db, id: string): void {
  statements(db).enable.run(id);
}

/** Moves an endpoint back (or forward) to `position`: every later event of its types is sent (again). */
export function moveWebhookEndpoint(db: Db, id: string, position: number): void {
  statements(db).replay.run({ position, id });
}

/** Removes an endpoint from the list and from delivery; what it may have had is kept (removed_webhook_endpoints). */
export function removeWebhookEndpoint(db: Db, id: string, removedAt: string): void {
  statements(db).keepRemoved.run({ id, removed_at: removedAt });
  statements(db).remove.run(id);
}

/** Every endpoint there is or was, removed ones too, with the range of events it may have had. */
export function listEndpointReaches(db: Db): EndpointReach[] {
  return statements(db).reaches.all();
}

import { countChangeEventsAfter, lastChangeSeq } from '../../db/change-events.js';
import type { Db } from '../../db/open-database.js';
import {
  enableWebhookEndpoint,
  findWebhookEndpoint,
  findWebhookEndpointByName,
  insertWebhookEndpoint,
  listWebhookEndpointRows,
  moveWebhookEndpoint,
  removeWebhookEndpoint,
  type WebhookEndpointRow,
} from '../../db/webhook-endpoints.js';
import { field } from '../../fields/field-spec.js';
import { idOf } from '../../fields/human-numbers.js';
import { CHANGE_TYPES, type ChangeType } from '../../change-types.js';
import { changeTypesError, changeTypesOf } from '../changes/list-change-events.js';
import { newId, nowIso } from '../clock.js';
import { errors, ValidationError, type ValidationIssue } from '../../errors.js';
import { defineUseCase } from '../use-case.js';
import { problems } from '../validation/problems.js';
import { isPlainObject } from '../validation/structs.js';
import { issue } from '../validation/validate.js';
import { newWebhookSecret } from './signature.js';
import { ROLE_ROWS } from '../people/roles.js';

/**
 * The webhook endpoints IT registers at the desk (`clinic webhook add|list|enable|replay|remove`,
 * clinic-api-1.2.md "Change feed"). The server delivers to them (src/webhooks/); these commands
 * change their rows, and the server follows within a second.
 */

/** An endpoint as `webhook list --json` shows it: never its secret. */
export interface WebhookEndpoint {
  id: string;
  name: string;
  url: string;
  types: ChangeType[];
  state: 'enabled' | 'disabled';
  /** The seq of the last event it answered 2xx; null before the first. */
  last_delivered_seq: number | null;
  /** How many events of its types it has still to get. */
  lag: number;
  /** Why the last attempt failed; null after a delivery. */
  last_error: string | null;
}

/** An endpoint just added: the only time its secret is shown. */
export interface AddedWebhookEndpoint extends Pick<WebhookEndpoint, 'id' | 'name' | 'url' | 'types' | 'state'> {
  secret: string;
}

/** What the desk's printout adds to the listed fields. */
export interface WebhookEndpointStatus extends WebhookEndpoint {
  last_delivered_at: string | null;
  next_attempt_at: string | null;
  failing_since: string | null;
  disabled_at: string | null;
}

/** The types an endpoint gets: those it was given, or all (null). */
export function endpointTypes(row: WebhookEndpointRow): ChangeType[] | null {
  return row.types === null ? null : (JSON.parse(row.types) as ChangeType[]);
}

export function presentWebhookEndpoint(db: Db, row: WebhookEndpointRow): WebhookEndpointStatus {
  const types = endpointTypes(row);
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    types: types ?? [...CHANGE_TYPES],
    state: row.state,
    last_delivered_seq: row.last_delivered_seq,
    lag: countChangeEventsAfter(db, row.position, types),
    last_error: row.last_error,
    last_delivered_at: row.last_delivered_at,
    next_attempt_at: row.next_attempt_at,
    failing_since: row.failing_since,
    disabled_at: row.disabled_at,
  };
}

/** The documented shape of an endpoint (`webhook list --json`), without the printout's extras. */
export function listedWebhookEndpoint(status: WebhookEndpointStatus): WebhookEndpoint {
  const { id, name, url, types, state, last_delivered_seq, lag, last_error } = status;
  return { id, name, url, types, state, last_delivered_seq, lag, last_error };
}

/** The endpoint `reference` names: its id, in any case (decisions.md §3), or its name. */
function resolveEndpoint(db: Db, reference: string): WebhookEndpointRow {
  const id = idOf(reference.trim());
  const row = (id === undefined ? undefined : findWebhookEndpoint(db, id)) ?? findWebhookEndpointByName(db, reference);
  if (row === undefined) throw errors.webhookNotFound(reference);
  return row;
}

const MAX_URL_LENGTH = 2000;

/** What is wrong with a webhook URL, or undefined: http or https, absolute, no user or password in it. */
function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'expected an absolute URL such as https://reminders.example/clinic-events';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the URL must be http: or https:, not ${url.protocol}`;
  // The list prints URLs; a password in one would be shown to whoever lists them. The signature authenticates.
  if (url.username !== '' || url.password !== '') return 'the URL must not hold a user name or password: the signature authenticates';
  return undefined;
}

/**
 * The host a webhook URL sends events to in clear text, or undefined: `http://` to a host other
 * than this PC. Events carry patient ids and numbers, and a plain-HTTP receiver cannot be told
 * from whoever answers for its address; only this PC's own `localhost`, `::1` and 127.0.0.0/8
 * (the loopback `serve` itself may use without TLS) never leave the machine.
 */
export function insecureWebhookHost(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:') return undefined;
  // The URL parser has already turned 2130706433 and 0x7f.1 into 127.0.0.1.
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  return loopback ? undefined : url.host;
}

export const WEBHOOK_ADD_FIELDS = [
  field.string('url', {
    required: true,
    minLength: 1,
    maxLength: MAX_URL_LENGTH,
    description: 'where events are POSTed: https://, or http:// to this PC (to another host only with --allow-insecure-url)',
  }),
  field.string('types', {
    minLength: 1,
    maxLength: 1000,
    description: `comma-separated event types (${CHANGE_TYPES.join(', ')}); default: all, also those later versions add`,
  }),
  field.string('name', { minLength: 1, maxLength: 100, description: "the endpoint's name, unique (default: the URL's host)" }),
] as const;

/** What `webhook add` takes: its options' fields, and whether plain HTTP to another host is accepted (`--allow-insecure-url`). */
const WEBHOOK_ADD_INPUT = [
  ...WEBHOOK_ADD_FIELDS,
  field.boolean('allow_insecure_url', { description: 'accept an http:// URL of another host: events then travel unencrypted' }),
] as const;

function addIssues(body: unknown, fieldIssues: readonly ValidationIssue[]): ValidationIssue[] {
  if (!isPlainObject(body)) return [];
  const failed = new Set(fieldIssues.map((i) => i.loc[1]));
  const found: ValidationIssue[] = [];
  if (typeof body.url === 'string' && !failed.has('url')) {
    const problem = urlProblem(body.url);
    if (problem !== undefined) found.push(issue(['body', 'url'], problems.valueError(problem), body.url));
  }
  if (typeof body.types === 'string' && !failed.has('types')) {
    const error = changeTypesError(body.types);
    if (error !== undefined) found.push(issue(['body', 'types'], problems.valueError(error), body.types));
  }
  return found;
}

/**
 * `clinic webhook add`: a new endpoint, enabled, that gets the events committed after it was
 * added (its position is the feed's last seq, read under the write lock). A URL that would send
 * events to another host in clear text is refused unless accepted in so many words
 * (WEBHOOK_URL_INSECURE); endpoints added before that rule keep working as they are.
 */
export const ADD_WEBHOOK_ENDPOINT = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Add a webhook endpoint: the change feed is POSTed to it, signed, while clinic serve runs',
  input: { body: WEBHOOK_ADD_INPUT },
  refusals: [errors.webhookNameTaken('reminders'), errors.webhookUrlInsecure('crm.praxis.lan')],
  access: 'read-then-write',
  moreIssues: ({ body }, fieldIssues) => addIssues(body, fieldIssues),
  run(db, { body }): AddedWebhookEndpoint {
    const insecureHost = insecureWebhookHost(body.url);
    if (insecureHost !== undefined && body.allow_insecure_url !== true) throw errors.webhookUrlInsecure(insecureHost);
    const name = body.name ?? new URL(body.url).host;
    if (findWebhookEndpointByName(db, name) !== undefined) throw errors.webhookNameTaken(name);
    const types = changeTypesOf(body.types);
    const position = lastChangeSeq(db);
    const row: WebhookEndpointRow = {
      id: newId(),
      name,
      url: body.url,
      types: types === null ? null : JSON.stringify(types),
      secret: newWebhookSecret(),
      state: 'enabled',
      position,
      last_delivered_seq: null,
      last_delivered_at: null,
      failing_since: null,
      failed_attempts: 0,
      next_attempt_at: null,
      last_error: null,
      disabled_at: null,
      created_at: nowIso(),
      first_position: position,
    };
    insertWebhookEndpoint(db, row);
    return { id: row.id, name, url: row.url, types: types ?? [...CHANGE_TYPES], state: row.state, secret: row.secret };
  },
  audit: ({ id }) => [{ action: 'webhook.create', patientId: null, subjectId: id }],
});

/** `clinic webhook list`: every endpoint, oldest first, with where it stands. */
export const LIST_WEBHOOK_ENDPOINTS = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'List the webhook endpoints: state, last delivered event, lag and last error',
  input: {},
  refusals: [],
  access: 'read',
  run: (db): WebhookEndpointStatus[] => listWebhookEndpointRows(db).map((row) => presentWebhookEndpoint(db, row)),
});

const ENDPOINT_REFERENCE = [field.string('webhook', { required: true, minLength: 1, description: "the endpoint's id or name" })] as const;

/** `clinic webhook enable`: delivers again from the first event it has not had; a waiting retry is tried at once. */
export const ENABLE_WEBHOOK_ENDPOINT = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Enable a webhook endpoint: it resumes at the first event it has not had',
  input: { path: ENDPOINT_REFERENCE },
  refusals: [errors.webhookNotFound('reminders')],
  access: 'read-then-write',
  run(db, { path }): WebhookEndpointStatus {
    const row = resolveEndpoint(db, path.webhook);
    enableWebhookEndpoint(db, row.id);
    return presentWebhookEndpoint(db, findWebhookEndpoint(db, row.id)!);
  },
});

/**
 * `clinic webhook replay --after SEQ`: sends again every event of its types after SEQ, then goes
 * on; it also enables a disabled endpoint (a replay is asked for to be delivered). SEQ may not be
 * past where the endpoint stands: a replay never skips events it has not had.
 */
export const REPLAY_WEBHOOK_ENDPOINT = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Send a webhook endpoint every event after a seq again, then go on',
  input: {
    path: ENDPOINT_REFERENCE,
    body: [
      field.integer('after', { required: true, minimum: 0, acceptsText: true, description: 'the seq after which events are sent again' }),
    ],
  },
  refusals: [errors.webhookNotFound('reminders')],
  access: 'read-then-write',
  run(db, { path, body }): WebhookEndpointStatus {
    const row = resolveEndpoint(db, path.webhook);
    if (body.after > row.position) {
      throw new ValidationError([
        issue(
          ['body', 'after'],
          problems.valueError(
            `the endpoint has not yet had the events after ${row.position}; a replay sends again what was sent, it skips nothing`,
          ),
          body.after,
        ),
      ]);
    }
    moveWebhookEndpoint(db, row.id, body.after);
    enableWebhookEndpoint(db, row.id);
    return presentWebhookEndpoint(db, findWebhookEndpoint(db, row.id)!);
  },
});

/** `clinic webhook remove`: no more deliveries; what it was is shown once more. */
export const REMOVE_WEBHOOK_ENDPOINT = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Remove a webhook endpoint: it gets no more events',
  input: { path: ENDPOINT_REFERENCE },
  refusals: [errors.webhookNotFound('reminders')],
  access: 'read-then-write',
  run(db, { path }): WebhookEndpointStatus {
    const row = resolveEndpoint(db, path.webhook);
    const removed = presentWebhookEndpoint(db, row);
    removeWebhookEndpoint(db, row.id, nowIso());
    return removed;
  },
  audit: ({ id }) => [{ action: 'webhook.remove', patientId: null, subjectId: id }],
});

import assert from 'node:assert/strict';
import { CHANGE_TYPES } from '../../../src/change-types.js';
import type { Db } from '../../../src/db/open-database.js';
import {
  findWebhookEndpoint,
  findWebhookEndpointByName,
  recordWebhookDelivered,
  recordWebhookFailure,
  type WebhookFailure,
} from '../../../src/db/webhook-endpoints.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import {
  ADD_WEBHOOK_ENDPOINT,
  ENABLE_WEBHOOK_ENDPOINT,
  REMOVE_WEBHOOK_ENDPOINT,
  REPLAY_WEBHOOK_ENDPOINT,
} from '../../../src/domain/webhooks/webhook-endpoints.js';
import { createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { refusesNonAdmin } from '../../helpers/admin-only.js';
import { assertFields, describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * ADD_, ENABLE_, REPLAY_ and REMOVE_WEBHOOK_ENDPOINT (`clinic webhook add|enable|replay|remove`;
 * no HTTP route: IT registers endpoints at the desk), rule by rule. The desk's printouts and the
 * deliveries of a running serve: test/cli/commands/webhook.test.ts; an attempt's bookkeeping:
 * test/domain/webhooks/deliver-webhooks.test.ts.
 */

/** The endpoint a scenario is about. */
interface Given {
  endpointId: string;
}

const REMINDERS_URL = 'https://reminders.example/clinic-events';
const REMINDERS = 'reminders.example';

/**
 * The endpoint "reminders.example", of every type unless `types` says, added after one patient's
 * event (seq 1), so it stands at 1; then `patients` new patients (one event each) and what
 * `before` does (what the server recorded of its deliveries).
 */
const anEndpoint =
  (options: { types?: string; patients?: number; before?: (db: Db, endpointId: string) => void } = {}) =>
  (db: Db): Given => {
    createTestPatient(db);
    const { id } = performUseCase(ADD_WEBHOOK_ENDPOINT, db, { body: { url: REMINDERS_URL, types: options.types } }, DESK_USER);
    newPatients(db, options.patients ?? 0);
    options.before?.(db, id);
    return { endpointId: id };
  };

/** `count` new patients: one patient.created each. */
const newPatients = (db: Db, count: number) => {
  for (let i = 0; i < count; i++) createTestPatient(db);
};

/** Removes the endpoint at the desk. */
const removeEndpoint = (db: Db, endpointId: string) =>
  void performUseCase(REMOVE_WEBHOOK_ENDPOINT, db, { path: { webhook: endpointId } }, DESK_USER);

const AT = '2026-11-30T08:00:00.000Z';

/** What the server records once the endpoint has answered each event up to `seq` 2xx. */
function deliveredUpTo(db: Db, endpointId: string, seq: number): void {
  recordWebhookDelivered(db, { id: endpointId, position: findWebhookEndpoint(db, endpointId)!.position, seq, at: AT });
}

type FirstFailure = Omit<WebhookFailure, 'id' | 'position' | 'previous_failed_attempts' | 'previous_failing_since'>;

/** The server's record of a 410 to the endpoint's next event: disabled at once (deliverWebhook). */
const GONE: FirstFailure = {
  failing_since: AT,
  failed_attempts: 1,
  next_attempt_at: null,
  last_error: 'HTTP 410; disabled: the endpoint answered 410 Gone',
  state: 'disabled',
  disabled_at: AT,
};

/** The server's record of a 503 to the endpoint's next event: tried again 5 s later. */
const UNAVAILABLE: FirstFailure = {
  failing_since: AT,
  failed_attempts: 1,
  next_attempt_at: '2026-11-30T08:00:05.000Z',
  last_error: 'HTTP 503',
  state: 'enabled',
  disabled_at: null,
};

/** Records `failure` as the endpoint's first failed attempt, where it stands. */
function failed(db: Db, endpointId: string, failure: FirstFailure): void {
  const position = findWebhookEndpoint(db, endpointId)!.position;
  assert.ok(recordWebhookFailure(db, { id: endpointId, position, previous_failed_attempts: 0, previous_failing_since: null, ...failure }));
}

/** Every value of every table but `except`, as one text. */
function everythingStored(db: Db, except = ''): string {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  return JSON.stringify(tables.filter(({ name }) => name !== except).map(({ name }) => db.prepare(`SELECT * FROM "${name}"`).all()));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `whsec_` and base64 of at least 24 random bytes (clinic-api-1.2.md, "Change feed"). */
const A_SECRET = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const body = (values: Record<string, unknown>) => () => ({ body: values });
const named = (reference: string) => () => ({ path: { webhook: reference } });
const theEndpoint = (given: Given) => ({ path: { webhook: given.endpointId } });
const replayAfter = (after: unknown) => () => ({ path: { webhook: REMINDERS }, body: { after } });

/**
 * Added (after the given endpoint and a second patient, seq 2): the result's fields, its secret
 * shown once, one webhook.create naming it, nothing in the feed. It is stored as `stored` says,
 * starting at the feed's last seq (it gets the events committed after it), and its secret is
 * kept in its row only, to sign with.
 */
const added =
  (result: Record<string, unknown>, stored: Record<string, unknown> = {}) =>
  (): Outcome => ({
    result: { types: [...CHANGE_TYPES], state: 'enabled', secret: A_SECRET, ...result },
    audit: (endpoint: { id: string }) => [
      { action: 'webhook.create', patient_id: null, subject_type: 'webhook', subject_id: endpoint.id, detail: null },
    ],
    changes: [],
    then: (db) => {
      const row = findWebhookEndpointByName(db, result.name as string);
      assertFields(row, { types: null, position: 2, first_position: 2, last_delivered_seq: null, ...stored }, 'the endpoint stored');
      assert.doesNotMatch(everythingStored(db, 'webhook_endpoints'), /whsec_/, 'the secret is in no other table');
    },
  });

/** The endpoint, and a second patient's event after it (seq 2). */
const afterOneMore = anEndpoint({ patients: 1 });

/** http:// URLs to this PC, and the name each endpoint gets by default. */
const THIS_PC: [url: string, name: string][] = [
  ['http://localhost:8080/in', 'localhost:8080'],
  ['http://127.8.9.10/in', '127.8.9.10'],
  ['http://[::1]:8085/in', '[::1]:8085'],
  // The URL parser reads 2130706433 as 127.0.0.1.
  ['http://2130706433/in', '127.0.0.1'],
];

/** http:// URLs to another host, and the host each refusal names. */
const ANOTHER_HOST: [url: string, host: string][] = [
  ['http://192.0.2.10:8085/clinic-hooks', '192.0.2.10:8085'],
  ['http://crm.praxis.lan/hooks', 'crm.praxis.lan'],
  ['http://[fe80::1]:8080/in', '[fe80::1]:8080'],
  ['http://127.0.0.1.nip.io/in', '127.0.0.1.nip.io'],
];

const adding: Scenario<Given>[] = [
  {
    title: "adds an endpoint named by its URL's host and port, of every type, also those later versions add, showing its secret once",
    given: afterOneMore,
    request: body({ url: 'https://hooks.example.org:8443/clinic' }),
    expect: added({ name: 'hooks.example.org:8443', url: 'https://hooks.example.org:8443/clinic' }),
  },
  {
    title: 'adds an endpoint of the types named, each once, in the order given, spaces around them ignored',
    given: afterOneMore,
    request: body({ url: 'https://billing.example/in', types: ' payment.created, invoice.created,payment.created' }),
    expect: added(
      { name: 'billing.example', types: ['payment.created', 'invoice.created'] },
      { types: '["payment.created","invoice.created"]' },
    ),
  },
  {
    title: 'adds an endpoint by the name given',
    given: afterOneMore,
    request: body({ url: 'https://lab.example/in', name: 'Labor Huber' }),
    expect: added({ name: 'Labor Huber', url: 'https://lab.example/in' }),
  },
  ...THIS_PC.map(([url, name]): Scenario<Given> => ({
    title: `adds ${url}: plain http:// to this PC never leaves it`,
    given: afterOneMore,
    request: body({ url }),
    expect: added({ name, url }),
  })),
  ...ANOTHER_HOST.map(([url, host]): Scenario<Given> => ({
    title: `refuses ${url}, naming ${host} and how to accept it: events would cross the network in clear text (422 WEBHOOK_URL_INSECURE)`,
    given: afterOneMore,
    request: body({ url }),
    expect: () => ({
      refused: 'WEBHOOK_URL_INSECURE',
      status: 422,
      message: new RegExp(`to ${escapeRegExp(host)} over plain http://.*--allow-insecure-url`),
    }),
  })),
  {
    title: 'adds plain http:// to another host when that is accepted in so many words',
    given: afterOneMore,
    request: body({ url: 'http://crm.praxis.lan/hooks', allow_insecure_url: true }),
    expect: added({ name: 'crm.praxis.lan', url: 'http://crm.praxis.lan/hooks' }),
  },
  ...(
    [
      ['ftp://files.example.org/hook', /must be http: or https:, not ftp:/],
      ['not a url', /an absolute URL/],
      ['https://user:secret@hooks.example.org/hook', /user name or password/],
      ['https://user@hooks.example.org/hook', /user name or password/],
    ] as const
  ).map(([url, why]): Scenario<Given> => ({
    title: `refuses ${url} as a URL (value_error)`,
    given: afterOneMore,
    request: body({ url, name: 'bad' }),
    expect: () => ({ invalid: ['body.url'], types: ['value_error'], ctx: [{ error: why }] }),
  })),
  ...(
    [
      [{}, 'missing'],
      [{ url: '' }, 'string_too_short'],
      [{ url: `https://hooks.example.org/${'a'.repeat(2000)}` }, 'string_too_long'],
    ] as const
  ).map(([values, type]): Scenario<Given> => ({
    title: `refuses ${JSON.stringify(values).slice(0, 30)} as a URL: ${type}`,
    given: afterOneMore,
    request: body(values),
    expect: () => ({ invalid: ['body.url'], types: [type] }),
  })),
  {
    title: 'refuses a type the feed never has, naming it (value_error)',
    given: afterOneMore,
    request: body({ url: 'https://typo.example/', types: 'patient.created,patient.deleted' }),
    expect: () => ({ invalid: ['body.types'], types: ['value_error'], ctx: [{ error: /^"patient\.deleted" is not an event type/ }] }),
  },
  {
    title: 'refuses types that name none: leaving them out means every type',
    given: afterOneMore,
    request: body({ url: 'https://typo.example/', types: ' , ' }),
    expect: () => ({ invalid: ['body.types'], types: ['value_error'], ctx: [{ error: /names no event type/ }] }),
  },
  {
    title: 'refuses empty types (string_too_short)',
    given: afterOneMore,
    request: body({ url: 'https://typo.example/', types: '' }),
    expect: () => ({ invalid: ['body.types'], types: ['string_too_short'] }),
  },
  ...(
    [
      ['', 'string_too_short'],
      ['x'.repeat(101), 'string_too_long'],
    ] as const
  ).map(([name, type]): Scenario<Given> => ({
    title: `refuses a name of ${name.length} characters: ${type}`,
    given: afterOneMore,
    request: body({ url: 'https://lab.example/in', name }),
    expect: () => ({ invalid: ['body.name'], types: [type] }),
  })),
  {
    title: "refuses another endpoint's name, naming it (409 WEBHOOK_NAME_TAKEN)",
    given: afterOneMore,
    request: body({ url: 'https://lab.example/in', name: REMINDERS }),
    expect: () => ({ refused: 'WEBHOOK_NAME_TAKEN', status: 409, message: /already named "reminders\.example"/ }),
  },
  {
    title: "refuses a URL whose host is another endpoint's name when no name is given (409 WEBHOOK_NAME_TAKEN)",
    given: afterOneMore,
    request: body({ url: 'https://reminders.example/v2' }),
    expect: () => ({ refused: 'WEBHOOK_NAME_TAKEN', status: 409 }),
  },
  {
    title: 'takes the name of a removed endpoint',
    given: anEndpoint({ patients: 1, before: removeEndpoint }),
    request: body({ url: REMINDERS_URL }),
    expect: added({ name: REMINDERS, url: REMINDERS_URL }),
  },
  {
    title: 'refuses a person who is not an admin, whatever else they are (403 ROLE_FORBIDDEN)',
    given: afterOneMore,
    request: body({ url: 'https://lab.example/in' }),
    caller: { ...DESK_USER, roles: ['reception', 'billing', 'scheduler', 'practitioner'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403, message: /needs the role admin/ }),
  },
];

/**
 * The endpoint as enable and replay show it, never its secret. Neither records anything: the
 * trail records endpoints added and removed (clinic-api-1.3.md, "Audit actions"), not their moves.
 */
const shown =
  (result: Record<string, unknown>) =>
  (given: Given): Outcome => ({
    result: { id: given.endpointId, name: REMINDERS, state: 'enabled', disabled_at: null, secret: undefined, ...result },
    audit: [],
    changes: [],
  });

/** The row's failure columns once a run of failures is over: a waiting retry is due at once. */
const NO_FAILURES = { failing_since: null, next_attempt_at: null };

const enabling: Scenario<Given>[] = [
  {
    title: 'enables an endpoint a 410 disabled where it stands: the events it has not had wait for it, and why it failed stays shown',
    given: anEndpoint({ patients: 2, before: (db, endpointId) => failed(db, endpointId, GONE) }),
    request: named(REMINDERS),
    expect: shown({ lag: 2, last_delivered_seq: null, last_error: GONE.last_error, ...NO_FAILURES }),
  },
  {
    title: 'ends the run of failures of an enabled endpoint: its waiting retry is tried at once',
    given: anEndpoint({ patients: 1, before: (db, endpointId) => failed(db, endpointId, UNAVAILABLE) }),
    request: theEndpoint,
    expect: (given) => ({
      ...shown({ lag: 1, last_error: 'HTTP 503', ...NO_FAILURES })(given),
      then: (db) => assert.equal(findWebhookEndpoint(db, given.endpointId)?.failed_attempts, 0),
    }),
  },
  {
    title: 'answers an endpoint that delivers as it is',
    given: anEndpoint({ patients: 1, before: (db, endpointId) => deliveredUpTo(db, endpointId, 2) }),
    request: theEndpoint,
    expect: shown({ lag: 0, last_delivered_seq: 2, last_error: null }),
  },
  {
    title: 'refuses a name or id no endpoint has, naming it (404 WEBHOOK_NOT_FOUND)',
    given: anEndpoint(),
    request: named('nowhere'),
    expect: () => ({ refused: 'WEBHOOK_NOT_FOUND', status: 404, message: /"nowhere"/ }),
  },
  {
    title: 'refuses a removed endpoint (404 WEBHOOK_NOT_FOUND)',
    given: anEndpoint({ before: removeEndpoint }),
    request: theEndpoint,
    expect: () => ({ refused: 'WEBHOOK_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses an empty reference (string_too_short)',
    given: anEndpoint(),
    request: named(''),
    expect: () => ({ invalid: ['path.webhook'], types: ['string_too_short'] }),
  },
  refusesNonAdmin(anEndpoint(), named(REMINDERS)),
];

/** The endpoint with three more events (seq 2 to 4), each answered 2xx: it stands at 4. */
const deliveredAll = anEndpoint({ patients: 3, before: (db, endpointId) => deliveredUpTo(db, endpointId, 4) });

/** Where the endpoint stands (position) and the lowest place it ever stood (first_position). */
const standsAt = (expected: { position: number; first_position: number }) => (db: Db) =>
  assertFields(findWebhookEndpointByName(db, REMINDERS), expected, 'the endpoint');

const replaying: Scenario<Given>[] = [
  {
    title: 'sends again the events after the seq given, then goes on: it stands there, what it last delivered still shown',
    given: deliveredAll,
    request: replayAfter(2),
    expect: (given) => ({
      ...shown({ lag: 2, last_delivered_seq: 4, ...NO_FAILURES })(given),
      then: standsAt({ position: 2, first_position: 1 }),
    }),
  },
  {
    title: "replays from before the endpoint was added, and keeps that it may have had those events (the patient's copy names it)",
    given: deliveredAll,
    request: replayAfter(0),
    expect: (given) => ({ ...shown({ lag: 4 })(given), then: standsAt({ position: 0, first_position: 0 }) }),
  },
  {
    title: 'takes the seq it stands at: nothing is sent again',
    given: deliveredAll,
    request: replayAfter(4),
    expect: (given) => ({ ...shown({ lag: 0 })(given), then: standsAt({ position: 4, first_position: 1 }) }),
  },
  {
    title: 'takes the seq as the desk types it, as text',
    given: deliveredAll,
    request: replayAfter(' 2 '),
    expect: shown({ lag: 2 }),
  },
  {
    title: 'refuses a seq past where the endpoint stands: a replay never skips events it has not had (value_error)',
    given: deliveredAll,
    request: replayAfter(5),
    expect: () => ({ invalid: ['body.after'], types: ['value_error'], ctx: [{ error: /has not yet had the events after 4/ }] }),
  },
  {
    title: 'enables a disabled endpoint: a replay is asked for to be delivered',
    given: anEndpoint({ patients: 2, before: (db, endpointId) => failed(db, endpointId, GONE) }),
    request: replayAfter(0),
    expect: shown({ lag: 3, ...NO_FAILURES }),
  },
  {
    title: 'counts as waiting only the events of its types',
    given: anEndpoint({
      types: 'invoice.created',
      before: (db) => {
        createTestInvoice(db);
        createTestInvoice(db);
      },
    }),
    request: replayAfter(0),
    expect: shown({ types: ['invoice.created'], lag: 2 }),
  },
  ...(
    [
      [-1, 'greater_than_equal'],
      ['abc', 'int_parsing'],
      [undefined, 'missing'],
    ] as const
  ).map(([after, type]): Scenario<Given> => ({
    title: `refuses ${after === undefined ? 'no seq' : JSON.stringify(after)} as the seq to replay after: ${type}`,
    given: deliveredAll,
    request: replayAfter(after),
    expect: () => ({ invalid: ['body.after'], types: [type] }),
  })),
  {
    title: 'refuses a name or id no endpoint has (404 WEBHOOK_NOT_FOUND)',
    given: deliveredAll,
    request: () => ({ path: { webhook: 'nowhere' }, body: { after: 0 } }),
    expect: () => ({ refused: 'WEBHOOK_NOT_FOUND', status: 404, message: /"nowhere"/ }),
  },
  refusesNonAdmin(deliveredAll, replayAfter(0)),
];

/**
 * Removed: shown once more as it was, never its secret; one webhook.remove naming it. Gone from
 * the list and from delivery, it is kept unlisted with the range of events it may have had (the
 * patient's copy names it), and its secret nowhere.
 */
const removed =
  (result: Record<string, unknown>) =>
  (given: Given): Outcome => ({
    result: { id: given.endpointId, name: REMINDERS, url: REMINDERS_URL, secret: undefined, ...result },
    audit: [{ action: 'webhook.remove', patient_id: null, subject_type: 'webhook', subject_id: given.endpointId, detail: null }],
    changes: [],
    then: (db) => {
      assert.equal(findWebhookEndpoint(db, given.endpointId), undefined);
      assertFields(
        db.prepare('SELECT * FROM removed_webhook_endpoints WHERE id = ?').get(given.endpointId),
        { name: REMINDERS, url: REMINDERS_URL, types: null, first_position: 1, position: 1, removed_at: ISO },
        'what is kept of it',
      );
      assert.doesNotMatch(everythingStored(db), /whsec_/, 'its secret is kept nowhere');
    },
  });

const removing: Scenario<Given>[] = [
  {
    title: 'removes an endpoint by its name, showing it once more as it was',
    given: anEndpoint({ patients: 1 }),
    request: named(REMINDERS),
    expect: removed({ state: 'enabled', lag: 1, last_delivered_seq: null }),
  },
  {
    title: 'removes a disabled endpoint by its id',
    given: anEndpoint({ patients: 1, before: (db, endpointId) => failed(db, endpointId, GONE) }),
    request: theEndpoint,
    expect: removed({ state: 'disabled', disabled_at: AT, last_error: GONE.last_error }),
  },
  {
    title: 'finds an endpoint by its id written in capitals, as every id is read (decisions.md §3)',
    given: anEndpoint(),
    request: (given) => ({ path: { webhook: given.endpointId.toUpperCase() } }),
    expect: removed({ state: 'enabled', lag: 0, last_delivered_seq: null }),
  },
  {
    title: 'refuses an endpoint removed already (404 WEBHOOK_NOT_FOUND)',
    given: anEndpoint({ before: removeEndpoint }),
    request: theEndpoint,
    expect: () => ({ refused: 'WEBHOOK_NOT_FOUND', status: 404 }),
  },
  refusesNonAdmin(anEndpoint(), named(REMINDERS)),
];

describeScenarios('adding a webhook endpoint (ADD_WEBHOOK_ENDPOINT)', ADD_WEBHOOK_ENDPOINT, adding);
describeScenarios('enabling a webhook endpoint (ENABLE_WEBHOOK_ENDPOINT)', ENABLE_WEBHOOK_ENDPOINT, enabling);
describeScenarios('replaying events to a webhook endpoint (REPLAY_WEBHOOK_ENDPOINT)', REPLAY_WEBHOOK_ENDPOINT, replaying);
describeScenarios('removing a webhook endpoint (REMOVE_WEBHOOK_ENDPOINT)', REMOVE_WEBHOOK_ENDPOINT, removing);

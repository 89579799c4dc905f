import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { REMOVE_SMS_GATEWAY, SET_SMS_GATEWAY, SHOW_SMS_GATEWAY } from '../../../src/domain/reminders/set-sms-gateway.js';
import { smsGateway, writeSmsGateway, type SmsGateway } from '../../../src/domain/reminders/sms-gateway.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { SECRET_ECHO } from '../../../src/domain/validation/validate.js';
import { ValidationError } from '../../../src/errors.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';
import { assertFields, describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * SET_SMS_GATEWAY and REMOVE_SMS_GATEWAY (`clinic sms-gateway set|remove`, interface 1.3.0
 * "Channels and replies"), rule by rule: what each preset needs and refuses, what is stored for
 * the sender, what is shown (never a token or a header's value) and recorded. The desk's options,
 * `--token-file` and printout: test/cli/commands/reminders.test.ts; sending and reading replies
 * through a stored gateway: test/domain/reminders/sms-gateway.test.ts and replies.test.ts.
 */

type Given = Record<string, never>;

const TOKEN = 'tok-secret-123';
const BEARER = 'Bearer s3cr3t-value';

/** Twilio's preset as the desk sends it: the token read from the first line of its file. */
const TWILIO = { preset: 'twilio', account: 'AC0123456789', token: `${TOKEN}\n`, from: '+43720123456' } as const;
const MESSAGES_URL = 'https://api.twilio.com/2010-04-01/Accounts/AC0123456789/Messages.json';

/** A generic gateway that is told each reminder's id, so that it can drop a repeat. */
const GENERIC = {
  preset: 'generic',
  url: 'https://sms.example.org/send',
  header: [`Authorization: ${BEARER}`, 'X-Reference:{reference}'],
  body_template: '{"to":"{to}","text":"{text}","ref":"{reference}"}',
} as const;

/** The Twilio gateway stored first. */
const STORED_TWILIO: SmsGateway = {
  preset: 'twilio',
  account: 'AC1',
  token: 'old-token',
  from: '+43720000000',
  baseUrl: 'https://api.twilio.com',
};

/** A clinic, with `gateway` set first (none: no gateway). */
const aClinic =
  (gateway: SmsGateway | null = null) =>
  (db: Db): Given => {
    writeSmsGateway(db, gateway);
    return {};
  };

const body = (values: Record<string, unknown>) => () => ({ body: values });

/** setting.update naming the gateway: never its settings, which hold its secrets. */
const GATEWAY_RECORD = {
  action: 'setting.update',
  patient_id: null,
  subject_type: 'setting',
  subject_id: null,
  detail: { changed: ['sms_gateway'] },
};

/** Set: the gateway as shown (no secret), recorded once; `stored`: fields of what the sender reads. */
const set = (shown: Record<string, unknown>, stored: Record<string, unknown>): Outcome => ({
  result: shown,
  audit: [GATEWAY_RECORD],
  changes: [],
  then: (db) => assertFields(smsGateway(db), stored, 'the stored gateway'),
});

/** Refused as off its schema, at these fields with these types. */
const invalid = (...issues: [type: string, loc: string][]): Outcome => ({
  invalid: issues.map(([, loc]) => loc),
  types: issues.map(([type]) => type),
});

const setting: Scenario<Given>[] = [
  {
    title: "sets Twilio's preset: account, token and number trimmed, sending to the account's Messages resource",
    given: aClinic(),
    request: body({ ...TWILIO, account: ' AC0123456789 ', from: ' +43720123456 ' }),
    expect: () =>
      set(
        { preset: 'twilio', url: MESSAGES_URL, from: '+43720123456', headers: ['Authorization'], inbound: MESSAGES_URL },
        { preset: 'twilio', account: 'AC0123456789', token: TOKEN, from: '+43720123456', baseUrl: 'https://api.twilio.com' },
      ),
  },
  {
    title: "sends Twilio's preset to another base URL (a test double), without its trailing slash",
    given: aClinic(),
    request: body({ ...TWILIO, base_url: 'http://127.0.0.1:8089/' }),
    expect: () =>
      set(
        {
          url: 'http://127.0.0.1:8089/2010-04-01/Accounts/AC0123456789/Messages.json',
          inbound: 'http://127.0.0.1:8089/2010-04-01/Accounts/AC0123456789/Messages.json',
        },
        { baseUrl: 'http://127.0.0.1:8089/' },
      ),
  },
  {
    title: 'sets a generic gateway: headers in order, shown by name only; pointers /id and /error by default; no number, no inbox',
    given: aClinic(),
    request: body(GENERIC),
    expect: () =>
      set(
        { preset: 'generic', url: 'https://sms.example.org/send', from: null, headers: ['Authorization', 'X-Reference'], inbound: null },
        {
          preset: 'generic',
          url: 'https://sms.example.org/send',
          headers: [
            ['Authorization', BEARER],
            ['X-Reference', '{reference}'],
          ],
          bodyTemplate: GENERIC.body_template,
          from: null,
          idPointer: '/id',
          errorPointer: '/error',
          inboundUrl: null,
        },
      ),
  },
  {
    title: 'sets a generic gateway with its number, pointers and inbox',
    given: aClinic(),
    request: body({
      ...GENERIC,
      from: ' Praxis ',
      id_pointer: '/data/0/id',
      error_pointer: '/errors/0/message',
      inbound_url: 'https://sms.example.org/inbox?since={since}',
    }),
    expect: () =>
      set(
        { from: 'Praxis', inbound: 'https://sms.example.org/inbox?since={since}' },
        {
          from: 'Praxis',
          idPointer: '/data/0/id',
          errorPointer: '/errors/0/message',
          inboundUrl: 'https://sms.example.org/inbox?since={since}',
        },
      ),
  },
  {
    title: 'replaces the gateway there was: no Twilio token is left',
    given: aClinic(STORED_TWILIO),
    request: body(GENERIC),
    expect: () => ({
      result: { preset: 'generic' },
      audit: [GATEWAY_RECORD],
      changes: [],
      then: (db) => assert.ok(!JSON.stringify(smsGateway(db)).includes('old-token')),
    }),
  },
  {
    title: 'records a gateway set again as it was as set again',
    given: aClinic({ ...STORED_TWILIO, account: 'AC0123456789', token: TOKEN, from: '+43720123456' }),
    request: body(TWILIO),
    expect: () => ({ result: { url: MESSAGES_URL }, audit: [GATEWAY_RECORD], changes: [] }),
  },
];

const refusals: Scenario<Given>[] = [
  {
    title: 'refuses a request without a preset (missing)',
    given: aClinic(),
    request: body({ url: 'https://sms.example.org/send' }),
    expect: () => invalid(['missing', 'body.preset']),
  },
  {
    title: 'refuses a preset it does not have (literal_error)',
    given: aClinic(),
    request: body({ preset: 'nexmo' }),
    expect: () => invalid(['literal_error', 'body.preset']),
  },
  {
    title: "refuses Twilio's preset without its account, token and number, naming each (missing)",
    given: aClinic(STORED_TWILIO),
    request: body({ preset: 'twilio' }),
    expect: () => invalid(['missing', 'body.account'], ['missing', 'body.token'], ['missing', 'body.from']),
  },
  {
    title: 'refuses a generic gateway without its URL and body template (missing)',
    given: aClinic(),
    request: body({ preset: 'generic', from: '+43720123456' }),
    expect: () => invalid(['missing', 'body.url'], ['missing', 'body.body_template']),
  },
  {
    title: "refuses the generic gateway's fields with Twilio's preset (value_error at each)",
    given: aClinic(),
    request: body({
      ...TWILIO,
      url: 'https://x.example',
      header: ['A: b'],
      body_template: '{}',
      id_pointer: '/id',
      error_pointer: '/e',
      inbound_url: 'https://x.example',
    }),
    expect: () =>
      invalid(
        ['value_error', 'body.url'],
        ['value_error', 'body.header'],
        ['value_error', 'body.body_template'],
        ['value_error', 'body.id_pointer'],
        ['value_error', 'body.error_pointer'],
        ['value_error', 'body.inbound_url'],
      ),
  },
  {
    title: "refuses Twilio's fields with the generic preset (value_error at each)",
    given: aClinic(),
    request: body({ ...GENERIC, account: 'AC1', token: 't', base_url: 'https://api.twilio.com' }),
    expect: () => invalid(['value_error', 'body.account'], ['value_error', 'body.token'], ['value_error', 'body.base_url']),
  },
  ...(
    [
      ['url', 'ftp://sms.example.org/send'],
      ['url', 'sms.example.org/send'],
      ['inbound_url', 'mailto:sms@example.org'],
    ] as const
  ).map(([name, url]): Scenario<Given> => ({
    title: `refuses the ${name} ${url}: not http:// or https:// (value_error)`,
    given: aClinic(),
    request: body({ ...GENERIC, [name]: url }),
    expect: () => invalid(['value_error', `body.${name}`]),
  })),
  {
    title: "refuses Twilio's base URL file:///etc (value_error)",
    given: aClinic(),
    request: body({ ...TWILIO, base_url: 'file:///etc' }),
    expect: () => invalid(['value_error', 'body.base_url']),
  },
  ...(
    [
      ['id_pointer', 'id'],
      ['error_pointer', '/error~2'],
      ['id_pointer', '/data~'],
    ] as const
  ).map(([name, pointer]): Scenario<Given> => ({
    title: `refuses the ${name} ${JSON.stringify(pointer)}: no JSON Pointer (value_error)`,
    given: aClinic(),
    request: body({ ...GENERIC, [name]: pointer }),
    expect: () => invalid(['value_error', `body.${name}`]),
  })),
  {
    title: "refuses headers not written 'Name: value' (value_error at each), a name with a space, one with no name",
    given: aClinic(),
    request: body({ ...GENERIC, header: ['X-Ok: yes', 'no colon', 'Bad Name: x', ': value'] }),
    expect: () => invalid(['value_error', 'body.header.1'], ['value_error', 'body.header.2'], ['value_error', 'body.header.3']),
  },
  {
    title: 'refuses a header that would smuggle a second one by a line break (value_error)',
    given: aClinic(),
    request: body({ ...GENERIC, header: ['X-A: a\r\nX-B: b'] }),
    expect: () => invalid(['value_error', 'body.header.0']),
  },
  {
    title: 'refuses a 21st header (too_long)',
    given: aClinic(),
    request: body({ ...GENERIC, header: Array.from({ length: 21 }, (_, i) => `X-${i}: v`) }),
    expect: () => invalid(['too_long', 'body.header']),
  },
  {
    title: 'refuses a body template with a placeholder outside a JSON string, which leaves no JSON (422 TEMPLATE_INVALID)',
    given: aClinic(STORED_TWILIO),
    request: body({ ...GENERIC, body_template: '{"to":{to}}' }),
    expect: () => ({
      refused: 'TEMPLATE_INVALID',
      status: 422,
      message: /^The gateway's body template is not JSON once \{to\}, \{from\}, \{text\} and \{reference\} are filled in/,
    }),
  },
  ...['["{to}","{text}"]', '"{text}"'].map((template): Scenario<Given> => ({
    title: `refuses the body template ${template}: JSON, but not an object (422 TEMPLATE_INVALID)`,
    given: aClinic(),
    request: body({ ...GENERIC, body_template: template }),
    expect: () => ({ refused: 'TEMPLATE_INVALID', status: 422, message: /is not a JSON object once/ }),
  })),
  {
    title: 'refuses a body template of one character (string_too_short)',
    given: aClinic(),
    request: body({ ...GENERIC, body_template: '{' }),
    expect: () => invalid(['string_too_short', 'body.body_template']),
  },
  ...(
    [
      ['account', 'A'.repeat(65)],
      ['token', 't'.repeat(501)],
      ['from', '+'.padEnd(33, '1')],
    ] as const
  ).map(([name, value]): Scenario<Given> => ({
    title: `refuses a Twilio ${name} of ${value.length} characters (string_too_long)`,
    given: aClinic(),
    request: body({ ...TWILIO, [name]: value }),
    expect: () => invalid(['string_too_long', `body.${name}`]),
  })),
  ...(['account', 'token', 'from'] as const).map((name): Scenario<Given> => ({
    title: `refuses a Twilio ${name} of spaces alone, which would be stored as nothing (string_too_short)`,
    given: aClinic(),
    request: body({ ...TWILIO, [name]: '   ' }),
    expect: () => invalid(['string_too_short', `body.${name}`]),
  })),
  {
    title: 'refuses a generic sender of spaces alone (string_too_short)',
    given: aClinic(),
    request: body({ ...GENERIC, from: ' ' }),
    expect: () => invalid(['string_too_short', 'body.from']),
  },
  {
    title: 'refuses a person at reception: only an admin sets the gateway (403 ROLE_FORBIDDEN)',
    given: aClinic(),
    request: body(TWILIO),
    caller: { ...DESK_USER, roles: ['reception'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

const removing: Scenario<Given>[] = [
  {
    title: 'removes the gateway, saying there was one: reminders go by e-mail, or are skipped',
    given: aClinic(STORED_TWILIO),
    request: () => ({}),
    expect: () => ({
      result: { removed: true },
      audit: [GATEWAY_RECORD],
      changes: [],
      then: (db) => assert.equal(smsGateway(db), null),
    }),
  },
  {
    title: 'removes none where there is none, saying so, and records nothing',
    given: aClinic(),
    request: () => ({}),
    expect: () => ({ result: { removed: false }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a person at reception (403 ROLE_FORBIDDEN)',
    given: aClinic(STORED_TWILIO),
    request: () => ({}),
    caller: { ...DESK_USER, roles: ['reception'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('SET_SMS_GATEWAY: setting', SET_SMS_GATEWAY, setting);
describeScenarios('SET_SMS_GATEWAY: refusals', SET_SMS_GATEWAY, refusals);
describeScenarios('REMOVE_SMS_GATEWAY', REMOVE_SMS_GATEWAY, removing);

/**
 * The promise of `sms-gateway set|show` (1.3.0: "Token and header values are kept in the database
 * and never printed"): neither is in the answer, the audit trail or `show`, whatever the preset.
 */
describe('SET_SMS_GATEWAY keeps its secrets', () => {
  const data = useTestDatabase({ each: true });
  const auditText = () => JSON.stringify(data.db.prepare('SELECT * FROM audit_events').all());

  for (const [preset, request, secrets] of [
    ['twilio', TWILIO, [TOKEN]],
    ['generic', GENERIC, [BEARER, 's3cr3t']],
  ] as const) {
    it(`shows and records no ${preset} secret, though the sender has it`, () => {
      const answered = JSON.stringify(performUseCase(SET_SMS_GATEWAY, data.db, { body: request }, DESK_USER));
      const shown = JSON.stringify(performUseCase(SHOW_SMS_GATEWAY, data.db, {}, DESK_USER));
      for (const secret of secrets) {
        assert.ok(!answered.includes(secret), `the answer holds ${secret}: ${answered}`);
        assert.ok(!shown.includes(secret), `show holds ${secret}: ${shown}`);
        assert.ok(!auditText().includes(secret), `the audit trail holds ${secret}`);
        assert.ok(JSON.stringify(smsGateway(data.db)).includes(secret), `the stored gateway lacks ${secret}`);
      }
    });
  }

  it('echoes no secret in a refusal: a token too long, a header malformed, or the body around a field left out', () => {
    const longToken = `${TOKEN}${'x'.repeat(500)}`;
    for (const body of [
      { ...TWILIO, token: longToken },
      { preset: 'twilio', token: TOKEN, from: TWILIO.from },
      { ...GENERIC, header: [`Authorization Bearer ${BEARER}`] },
      { preset: 'generic', header: [`Authorization: Bearer ${BEARER}`], url: GENERIC.url },
    ]) {
      const refusal = thrownBy(() => performUseCase(SET_SMS_GATEWAY, data.db, { body }, DESK_USER));
      assert.ok(refusal instanceof ValidationError, `refused as invalid, not ${String(refusal)}`);
      const echoed = JSON.stringify(refusal.issues);
      for (const secret of [TOKEN, BEARER]) assert.ok(!echoed.includes(secret), `the refusal echoes ${secret}: ${echoed}`);
      assert.ok(echoed.includes(SECRET_ECHO), `the refusal says a secret is not shown: ${echoed}`);
    }
  });
});

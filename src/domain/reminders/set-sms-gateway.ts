import type { Db } from '../../db/open-database.js';
import { errors, type ValidationIssue } from '../../errors.js';
import { field, type ValuesOf } from '../../fields/field-spec.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { ROLE_ROWS } from '../people/roles.js';
import { defineUseCase } from '../use-case.js';
import { problems } from '../validation/problems.js';
import { isPlainObject } from '../validation/structs.js';
import { issue } from '../validation/validate.js';
import { checkBodyTemplate, isJsonPointer } from './gateway-templates.js';
import { shownSmsGateway, smsGateway, TWILIO_BASE_URL, writeSmsGateway, type ShownSmsGateway, type SmsGateway } from './sms-gateway.js';

const PRESETS = ['twilio', 'generic'] as const;

const SMS_GATEWAY_FIELDS = [
  field.literal('preset', { required: true, values: PRESETS, description: "twilio (Twilio's Messages API) or generic (a JSON POST)" }),
  field.string('account', { minLength: 1, maxLength: 64, description: "twilio: the account's SID (AC…)" }),
  field.string('token', {
    minLength: 1,
    maxLength: 500,
    secret: true,
    description: "twilio: the account's auth token (at the desk: --token-file, its first line)",
  }),
  field.string('from', {
    minLength: 1,
    maxLength: 32,
    description: 'the number (or sender name) the messages come from; twilio: required',
  }),
  field.string('base_url', { minLength: 1, maxLength: 500, description: `twilio: the API's address (default ${TWILIO_BASE_URL})` }),
  field.string('url', { minLength: 1, maxLength: 2000, description: 'generic: where a message is POSTed' }),
  field.stringList('header', {
    maxItems: 20,
    maxItemLength: 2000,
    secret: true,
    description: "generic: 'Name: value' headers; a value may hold {reference}",
  }),
  field.string('body_template', {
    minLength: 2,
    maxLength: 10_000,
    description: 'generic: the JSON body, with {to}, {from}, {text} and {reference} inside its strings',
  }),
  field.string('id_pointer', { maxLength: 200, description: "generic: JSON Pointer to the message's id in a 2xx answer (default /id)" }),
  field.string('error_pointer', { maxLength: 200, description: 'generic: JSON Pointer to the reason in a refusal (default /error)' }),
  field.string('inbound_url', { minLength: 1, maxLength: 2000, description: 'generic: where replies are read; {since} in it is filled' }),
] as const;

type GatewayBody = ValuesOf<typeof SMS_GATEWAY_FIELDS>;

const ONLY_FOR: Readonly<Record<string, (typeof PRESETS)[number]>> = {
  account: 'twilio',
  token: 'twilio',
  base_url: 'twilio',
  url: 'generic',
  header: 'generic',
  body_template: 'generic',
  id_pointer: 'generic',
  error_pointer: 'generic',
  inbound_url: 'generic',
};
const NEEDED: Readonly<Record<(typeof PRESETS)[number], readonly string[]>> = {
  twilio: ['account', 'token', 'from'],
  generic: ['url', 'body_template'],
};

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
};

/** A header as typed, `Name: value`, split; undefined when the name is no HTTP token or the value has a line break. */
function headerOf(text: string): [string, string] | undefined {
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*)$/.exec(text);
  return match === null || /[\r\n]/.test(match[2]!) ? undefined : [match[1]!, match[2]!.trim()];
}

/** What one preset needs and the other does not take, URLs, headers and pointers. */
function gatewayIssues(body: unknown, fieldIssues: readonly ValidationIssue[]): ValidationIssue[] {
  if (!isPlainObject(body) || typeof body.preset !== 'string' || !(PRESETS as readonly string[]).includes(body.preset)) return [];
  const preset = body.preset as (typeof PRESETS)[number];
  const failed = new Set(fieldIssues.map((found) => found.loc[1]));
  const found: ValidationIssue[] = [];
  for (const name of NEEDED[preset]) if (body[name] === undefined) found.push(issue(['body', name], problems.missing(), body));
  for (const [name, only] of Object.entries(ONLY_FOR)) {
    if (body[name] !== undefined && only !== preset)
      found.push(issue(['body', name], problems.valueError(`only the ${only} preset takes it`), body[name]));
  }
  // Stored trimmed: spaces alone would store nothing (a Twilio URL of no account, a sender of no name).
  for (const name of ['account', 'token', 'from']) {
    const value = body[name];
    if (typeof value === 'string' && !failed.has(name) && value.trim() === '')
      found.push(issue(['body', name], problems.stringTooShort(1), value));
  }
  for (const name of ['base_url', 'url', 'inbound_url']) {
    const value = body[name];
    if (typeof value === 'string' && !failed.has(name) && !isHttpUrl(value))
      found.push(issue(['body', name], problems.valueError('expected an http:// or https:// URL'), value));
  }
  for (const name of ['id_pointer', 'error_pointer']) {
    const value = body[name];
    if (typeof value === 'string' && !failed.has(name) && !isJsonPointer(value))
      found.push(issue(['body', name], problems.valueError('expected a JSON Pointer such as /id or /data/0/id'), value));
  }
  if (Array.isArray(body.header) && !failed.has('header')) {
    body.header.forEach((text: unknown, index) => {
      if (typeof text === 'string' && headerOf(text) === undefined)
        found.push(issue(['body', 'header', index], problems.valueError("expected 'Name: value'"), text));
    });
  }
  return found;
}

/** The gateway a valid request describes. */
function gatewayOf(body: GatewayBody): SmsGateway {
  if (body.preset === 'twilio') {
    return {
      preset: 'twilio',
      account: body.account!.trim(),
      token: body.token!.trim(),
      from: body.from!.trim(),
      baseUrl: body.base_url ?? TWILIO_BASE_URL,
    };
  }
  checkBodyTemplate(body.body_template!);
  return {
    preset: 'generic',
    url: body.url!,
    headers: (body.header ?? []).map((text: string) => headerOf(text)!),
    bodyTemplate: body.body_template!,
    from: body.from?.trim() ?? null,
    idPointer: body.id_pointer ?? '/id',
    errorPointer: body.error_pointer ?? '/error',
    inboundUrl: body.inbound_url ?? null,
  };
}

const gatewayRecord = (): AuditRecord => ({
  action: 'setting.update',
  patientId: null,
  subjectId: null,
  detail: { changed: ['sms_gateway'] },
});

/**
 * `clinic sms-gateway set` (interface 1.3.0): the clinic's SMS gateway, replacing any before.
 * Twilio's preset needs the account, its token and the sending number; the generic one a URL and
 * a body template that is a JSON object once filled (TEMPLATE_INVALID otherwise). The token and
 * the header values are kept in the database and never shown again.
 */
export const SET_SMS_GATEWAY = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Set the clinic's SMS gateway: Twilio, or any that takes a JSON POST",
  input: { body: SMS_GATEWAY_FIELDS },
  refusals: [errors.gatewayTemplateInvalid('not JSON')],
  access: 'write',
  moreIssues: ({ body }, fieldIssues) => gatewayIssues(body, fieldIssues),
  run(db: Db, { body }): ShownSmsGateway {
    const gateway = gatewayOf(body);
    writeSmsGateway(db, gateway);
    return shownSmsGateway(gateway);
  },
  audit: () => [gatewayRecord()],
});

/** `clinic sms-gateway show`: the gateway without its secrets, or null when none is set. */
export const SHOW_SMS_GATEWAY = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Show the clinic's SMS gateway (never its token or header values)",
  input: {},
  refusals: [],
  access: 'read',
  run: (db): ShownSmsGateway | null => {
    const gateway = smsGateway(db);
    return gateway === null ? null : shownSmsGateway(gateway);
  },
});

/** `clinic sms-gateway remove`: no SMS any more; `removed` says whether there was a gateway. */
export const REMOVE_SMS_GATEWAY = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Remove the clinic's SMS gateway: reminders go by e-mail, or are skipped",
  input: {},
  refusals: [],
  access: 'write',
  run(db: Db): { removed: boolean } {
    const removed = smsGateway(db) !== null;
    writeSmsGateway(db, null);
    return { removed };
  },
  audit: ({ removed }) => (removed ? [gatewayRecord()] : []),
});

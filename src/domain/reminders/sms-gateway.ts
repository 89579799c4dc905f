import type { Db } from '../../db/open-database.js';
import { readSetting, removeSetting, writeSetting } from '../../db/settings.js';

/**
 * The clinic's SMS gateway (interface 1.3.0, `clinic sms-gateway set|show|remove`): Twilio's
 * Messages API, or any gateway that takes a JSON POST (generic). Kept in the database with its
 * token and header values, which are never printed; the reminder sender reads it every pass, so a
 * running server follows a change within a pass.
 */

export const TWILIO_BASE_URL = 'https://api.twilio.com';

export type SmsGateway =
  | { preset: 'twilio'; account: string; token: string; from: string; baseUrl: string }
  | {
      preset: 'generic';
      url: string;
      /** Name and value of each header, in the order given; a value may hold `{reference}`. */
      headers: [string, string][];
      bodyTemplate: string;
      from: string | null;
      idPointer: string;
      errorPointer: string;
      inboundUrl: string | null;
    };

const SETTING_KEY = 'sms_gateway';

export function smsGateway(db: Db): SmsGateway | null {
  const stored = readSetting(db, SETTING_KEY);
  return stored === undefined ? null : (JSON.parse(stored) as SmsGateway);
}

export function writeSmsGateway(db: Db, gateway: SmsGateway | null): void {
  if (gateway === null) removeSetting(db, SETTING_KEY);
  else writeSetting(db, SETTING_KEY, JSON.stringify(gateway));
}

/** Twilio's Messages resource of the account: where messages are sent and replies listed. */
export const twilioMessagesUrl = (gateway: { baseUrl: string; account: string }) =>
  `${gateway.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(gateway.account)}/Messages.json`;

/** `sms-gateway show --json`: where it sends, from which number, the names of its headers, where replies are read; no secret. */
export interface ShownSmsGateway {
  preset: 'twilio' | 'generic';
  url: string;
  from: string | null;
  headers: string[];
  inbound: string | null;
}

export function shownSmsGateway(gateway: SmsGateway): ShownSmsGateway {
  if (gateway.preset === 'twilio') {
    const url = twilioMessagesUrl(gateway);
    return { preset: 'twilio', url, from: gateway.from, headers: ['Authorization'], inbound: url };
  }
  return {
    preset: 'generic',
    url: gateway.url,
    from: gateway.from,
    headers: gateway.headers.map(([name]) => name),
    inbound: gateway.inboundUrl,
  };
}

/** Whether a generic gateway is told the reminder's id, so that it can drop a repeat: then a send of unknown outcome may be repeated. */
export const dropsRepeats = (gateway: SmsGateway | null): boolean =>
  gateway !== null &&
  gateway.preset === 'generic' &&
  (gateway.bodyTemplate.includes('{reference}') || gateway.headers.some(([, value]) => value.includes('{reference}')));

/** One SMS: to an E.164 number, its text, and the reminder's id (the same on every attempt). */
export interface SmsMessage {
  to: string;
  text: string;
  reference: string;
}

/** A send the gateway did not take: `transient` may pass on a later try; `message` is for the reminder's `error`. */
export class SmsSendError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'SmsSendError';
  }
}

/** Sends one SMS through a gateway: the provider's id of it, or null; throws SmsSendError (the adapter: sms-gateway-client.ts). */
export type SmsSender = (gateway: SmsGateway, message: SmsMessage) => Promise<string | null>;

import { atPointer, fillJsonTemplate } from '../domain/reminders/gateway-templates.js';
import { SmsSendError, twilioMessagesUrl, type SmsGateway, type SmsMessage } from '../domain/reminders/sms-gateway.js';

/** No answer within this long is a transient failure (interface 1.3.0, "Sending"). */
const ANSWER_TIMEOUT_MS = 15_000;

/** The first 300 printable characters of an answer, for the reminder's `error`. */
const printable = (text: string) =>
  text
    .replace(/[^\x20-\x7e\u00a0-\uffff]+/g, ' ')
    .trim()
    .slice(0, 300);

/** 408, 429 and 5xx may pass later; any other refusal is final. */
const isTransientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** POSTs and reads the answer; a connection that fails or a gateway silent for 15 s is transient. */
async function post(url: string, init: RequestInit): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(url, { ...init, method: 'POST', redirect: 'error', signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${ANSWER_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new SmsSendError(`${new URL(url).host}: ${reason}`, true);
  }
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** Twilio: a form POST to the account's Messages.json with Basic auth; the id is the answer's `sid`. */
async function sendByTwilio(gateway: Extract<SmsGateway, { preset: 'twilio' }>, message: SmsMessage): Promise<string | null> {
  const { status, text } = await post(twilioMessagesUrl(gateway), {
    headers: {
      authorization: `Basic ${Buffer.from(`${gateway.account}:${gateway.token}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ To: message.to, From: gateway.from, Body: message.text }).toString(),
  });
  const answer = parsed(text) as { sid?: unknown; code?: unknown; message?: unknown } | undefined;
  if (status >= 200 && status < 300) return typeof answer?.sid === 'string' ? answer.sid : null;
  const detail =
    answer !== undefined && answer.code !== undefined && typeof answer.message === 'string'
      ? `${String(answer.code)} ${answer.message}`
      : printable(text);
  throw new SmsSendError(`HTTP ${status}: ${detail}`, isTransientStatus(status));
}

/** A generic gateway: its body template filled, its headers (Content-Type JSON unless set); the id at its pointer. */
async function sendByGeneric(gateway: Extract<SmsGateway, { preset: 'generic' }>, message: SmsMessage): Promise<string | null> {
  const values = { to: message.to, from: gateway.from ?? '', text: message.text, reference: message.reference };
  const headers: Record<string, string> = {};
  for (const [name, value] of gateway.headers) headers[name.toLowerCase()] = value.replaceAll('{reference}', message.reference);
  headers['content-type'] ??= 'application/json';
  const { status, text } = await post(gateway.url, { headers, body: fillJsonTemplate(gateway.bodyTemplate, values) });
  const answer = parsed(text);
  if (status >= 200 && status < 300) {
    const id = atPointer(answer, gateway.idPointer);
    return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
  }
  const error = atPointer(answer, gateway.errorPointer);
  throw new SmsSendError(`HTTP ${status}: ${typeof error === 'string' ? error : printable(text)}`, isTransientStatus(status));
}

/** Sends one SMS through the clinic's gateway: the provider's id of it, or null when it gives none. */
export function sendSms(gateway: SmsGateway, message: SmsMessage): Promise<string | null> {
  return gateway.preset === 'twilio' ? sendByTwilio(gateway, message) : sendByGeneric(gateway, message);
}

/** One message the gateway received for the clinic, as replies.ts takes it. */
export interface GatewayReply {
  providerId: string;
  from: string;
  text: string;
  receivedAt: string;
}

/** GETs a page of replies: its JSON, or throws (a failure waits for the next pass). */
async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, {
    headers: { accept: 'application/json', ...headers },
    redirect: 'error',
    signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${printable(text)}`);
  return parsed(text);
}

/** Twilio lists at most this many pages a pass (100 messages each). */
const MOST_TWILIO_PAGES = 10;

/** The UTC day `YYYY-MM-DD` of an instant. */
const utcDay = (instant: number) => new Date(instant).toISOString().slice(0, 10);

/**
 * The replies a gateway holds since `since`: Twilio's inbound messages to the clinic's number
 * sent from the UTC day before it on (Messages.json, `next_page_uri`, up to 10 pages); a generic
 * gateway's `--inbound-url` with `{since}` (since less 10 minutes, RFC 3339 UTC), a JSON array or
 * an object whose `messages` is one, of `{id, from, text}`.
 */
export async function fetchReplies(gateway: SmsGateway, since: Date, now: number): Promise<GatewayReply[]> {
  if (gateway.preset === 'twilio') {
    const authorization = `Basic ${Buffer.from(`${gateway.account}:${gateway.token}`).toString('base64')}`;
    const day = utcDay(since.getTime() - 86_400_000);
    let url: string | null = `${twilioMessagesUrl(gateway)}?To=${encodeURIComponent(gateway.from)}&DateSent%3E%3D${day}&PageSize=100`;
    const replies: GatewayReply[] = [];
    for (let page = 0; url !== null && page < MOST_TWILIO_PAGES; page += 1) {
      const answer = (await getJson(url, { authorization })) as { messages?: unknown[]; next_page_uri?: string | null } | undefined;
      for (const message of answer?.messages ?? []) {
        const { sid, from, body, direction, date_sent } = message as Record<string, unknown>;
        if (direction !== 'inbound' || typeof sid !== 'string' || typeof from !== 'string' || typeof body !== 'string') continue;
        const sent = typeof date_sent === 'string' ? Date.parse(date_sent) : NaN;
        replies.push({ providerId: sid, from, text: body, receivedAt: new Date(Number.isNaN(sent) ? now : sent).toISOString() });
      }
      url = typeof answer?.next_page_uri === 'string' ? new URL(answer.next_page_uri, gateway.baseUrl).toString() : null;
    }
    return replies;
  }
  if (gateway.inboundUrl === null) return [];
  const from = new Date(since.getTime() - 10 * 60_000).toISOString();
  const headers = Object.fromEntries(gateway.headers.map(([name, value]) => [name.toLowerCase(), value.replaceAll('{reference}', '')]));
  const answer = await getJson(gateway.inboundUrl.replaceAll('{since}', encodeURIComponent(from)), headers);
  const messages = Array.isArray(answer) ? answer : ((answer as { messages?: unknown } | undefined)?.messages ?? []);
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((message) => {
    const { id, from: sender, text } = (message ?? {}) as Record<string, unknown>;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof sender !== 'string' || typeof text !== 'string') return [];
    return [{ providerId: String(id), from: sender, text, receivedAt: new Date(now).toISOString() }];
  });
}

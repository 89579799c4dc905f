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

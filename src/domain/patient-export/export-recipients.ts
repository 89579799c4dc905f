import type { ApiKeyRow } from '../../db/api-keys.js';
import type { ChangeEventRow } from '../../db/change-events.js';
import type { EndpointReach } from '../../db/webhook-endpoints.js';
import type { AuditEvent } from '../audit/audit-event.js';
import type { Reminder } from '../reminders/list-reminders.js';

/** Who received the patient's data (GDPR Art. 15 (1) (c)): `recipients.json` of the copy. */
export interface Recipients {
  api_keys: { key_id: string; name: string; first_at: string; last_at: string; events: number }[];
  webhooks: { endpoint_id: string; name: string; host: string | null; first_at: string; last_at: string; events: number }[];
  messages: { channel: string; via: string | null; first_at: string; last_at: string; count: number }[];
}

/** The host of a URL, or null. */
export function hostOf(url: string | null | undefined): string | null {
  if (url === null || url === undefined) return null;
  try {
    return new URL(url).hostname || null;
  } catch {
    return null;
  }
}

interface Span {
  first_at: string;
  last_at: string;
  count: number;
}

/** Counts `at` into the span kept under `key`, widening it to include `at`. */
function widen<K>(spans: Map<K, Span>, key: K, at: string): void {
  const span = spans.get(key);
  if (span === undefined) spans.set(key, { first_at: at, last_at: at, count: 1 });
  else {
    if (at < span.first_at) span.first_at = at;
    if (at > span.last_at) span.last_at = at;
    span.count += 1;
  }
}

/** Whether an endpoint takes events of this type: every type without a list. */
const takesType = (endpoint: EndpointReach, type: string) =>
  endpoint.types === null || (JSON.parse(endpoint.types) as string[]).includes(type);

/**
 * Whether an endpoint acknowledged an event: one of its types, up to where it stands, after the
 * lowest position it held (or, for one added before 1.3.0 kept none, after it was added).
 */
const acknowledged = (endpoint: EndpointReach, event: ChangeEventRow) =>
  event.seq <= endpoint.position &&
  (endpoint.first_position === null ? event.occurred_at >= endpoint.created_at : event.seq > endpoint.first_position) &&
  takesType(endpoint, event.type);

export interface RecipientSources {
  accessLog: readonly AuditEvent[];
  feedEvents: readonly ChangeEventRow[];
  apiKeys: readonly ApiKeyRow[];
  webhooks: readonly EndpointReach[];
  reminders: readonly Reminder[];
  smsHost: string | null;
  smtpHost: string | null;
}

/**
 * The recipients of a patient's data: each API key that read or changed it (its events in the
 * patient's access log); each webhook endpoint, removed ones too, that acknowledged events about
 * the patient; the SMS gateway and the SMTP server that carried
 * its reminders.
 */
export function exportRecipients(sources: RecipientSources): Recipients {
  const keys = new Map<string, Span>();
  for (const event of sources.accessLog) if (event.actor_type === 'api_key') widen(keys, event.actor_id, event.at);
  const keyNames = new Map(sources.apiKeys.map((key) => [key.id, key.name]));
  const accessNames = new Map(sources.accessLog.map((event) => [event.actor_id, event.actor_name]));

  const webhooks: Recipients['webhooks'] = [];
  for (const endpoint of sources.webhooks) {
    const spans = new Map<string, Span>();
    for (const event of sources.feedEvents) {
      if (acknowledged(endpoint, event)) widen(spans, endpoint.id, event.occurred_at);
    }
    const span = spans.get(endpoint.id);
    if (span !== undefined) {
      webhooks.push({
        endpoint_id: endpoint.id,
        name: endpoint.name,
        host: hostOf(endpoint.url),
        first_at: span.first_at,
        last_at: span.last_at,
        events: span.count,
      });
    }
  }

  const messages = new Map<string, Span>();
  for (const reminder of sources.reminders) {
    if (reminder.state === 'sent' && reminder.channel !== null && reminder.sent_at !== null)
      widen(messages, reminder.channel, reminder.sent_at);
  }
  return {
    api_keys: [...keys].map(([key_id, span]) => ({
      key_id,
      name: keyNames.get(key_id) ?? accessNames.get(key_id) ?? key_id,
      first_at: span.first_at,
      last_at: span.last_at,
      events: span.count,
    })),
    webhooks,
    messages: [...messages].map(([channel, span]) => ({
      channel,
      via: channel === 'sms' ? sources.smsHost : sources.smtpHost,
      first_at: span.first_at,
      last_at: span.last_at,
      count: span.count,
    })),
  };
}

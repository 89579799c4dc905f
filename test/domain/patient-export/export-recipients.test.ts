import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiKeyRow } from '../../../src/db/api-keys.js';
import type { ChangeEventRow } from '../../../src/db/change-events.js';
import type { EndpointReach } from '../../../src/db/webhook-endpoints.js';
import type { AuditEvent } from '../../../src/domain/audit/audit-event.js';
import { exportRecipients, hostOf, type RecipientSources } from '../../../src/domain/patient-export/export-recipients.js';
import type { Reminder } from '../../../src/domain/reminders/list-reminders.js';

// `recipients.json` of the patient's copy (clinic-api-1.3.md, "The patient's copy"; GDPR Art. 15
// (1) (c)): who received the patient's data, worked out from what the clinic recorded.

const PATIENT = '3f1c2a4e-0000-4000-8000-000000000001';
const NONE: RecipientSources = { accessLog: [], feedEvents: [], apiKeys: [], webhooks: [], reminders: [], smsHost: null, smtpHost: null };

/** An event of the patient's access log by `actor_type` `actor_id` at `at`. */
function access(actor_type: AuditEvent['actor_type'], actor_id: string, at: string, actor_name = actor_id): AuditEvent {
  return {
    seq: 1,
    at,
    action: 'patient.read',
    patient_id: PATIENT,
    patient_number: 'P-000001',
    subject_type: 'patient',
    subject_id: PATIENT,
    actor_type,
    actor_id,
    actor_name,
    source: '127.0.0.1',
    request_id: null,
    detail: null,
    prev_hash: '0'.repeat(64),
    hash: '1'.repeat(64),
  };
}

const key = (id: string, name: string): ApiKeyRow => ({
  id,
  name,
  key_hash: 'x',
  scopes: '[]',
  created_at: '2026-01-01T00:00:00.000Z',
  revoked_at: null,
  rate_limit_per_minute: null,
});

const feedEvent = (seq: number, type: string, occurred_at = `2026-03-${String(seq).padStart(2, '0')}T10:00:00.000Z`): ChangeEventRow => ({
  seq,
  type,
  occurred_at,
  patient_id: PATIENT,
  data: '{}',
});

const endpoint = (reach: Partial<EndpointReach>): EndpointReach => ({
  id: 'wh-1',
  name: 'Labor',
  url: 'https://labor.example:8443/hooks',
  types: null,
  first_position: 0,
  position: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  ...reach,
});

/** A reminder of the patient in `state`, by `channel`, sent at `sent_at`. */
function reminder(state: Reminder['state'], channel: Reminder['channel'], sent_at: string | null): Reminder {
  return {
    id: 'r',
    appointment_id: PATIENT,
    appointment_number: 'A-000001',
    patient_id: PATIENT,
    patient_number: 'P-000001',
    rule: '1d',
    due_at: '2026-03-01T09:00:00.000Z',
    state,
    reason: null,
    channel,
    to: null,
    subject: null,
    text: null,
    attempts: 1,
    next_attempt_at: null,
    sent_at,
    provider_message_id: null,
    error: null,
    created_at: '2026-02-01T09:00:00.000Z',
    updated_at: '2026-02-01T09:00:00.000Z',
  };
}

describe('exportRecipients', () => {
  it('names each API key that read or changed the patient, from its first to its last event, and no person or desk', () => {
    const recipients = exportRecipients({
      ...NONE,
      accessLog: [
        access('api_key', 'k-1', '2026-03-05T10:00:00.000Z'),
        access('cli', 'maria', '2026-03-06T10:00:00.000Z'),
        access('person', 'p-1', '2026-03-06T11:00:00.000Z'),
        access('api_key', 'k-2', '2026-03-07T10:00:00.000Z', 'Telefonanlage (revoked and gone)'),
        access('api_key', 'k-1', '2026-03-02T10:00:00.000Z'),
        access('api_key', 'k-1', '2026-03-09T10:00:00.000Z'),
      ],
      apiKeys: [key('k-1', 'Praxis-Software')],
    });
    assert.deepEqual(recipients.api_keys, [
      { key_id: 'k-1', name: 'Praxis-Software', first_at: '2026-03-02T10:00:00.000Z', last_at: '2026-03-09T10:00:00.000Z', events: 3 },
      {
        key_id: 'k-2',
        name: 'Telefonanlage (revoked and gone)',
        first_at: '2026-03-07T10:00:00.000Z',
        last_at: '2026-03-07T10:00:00.000Z',
        events: 1,
      },
    ]);
    assert.deepEqual([recipients.webhooks, recipients.messages], [[], []]);
  });

  it('names a webhook endpoint for the events of its types it acknowledged after the lowest position it held, up to where it stands', () => {
    const feedEvents = [1, 2, 3, 4, 5, 6].map((seq) => feedEvent(seq, seq === 4 ? 'invoice.created' : 'patient.updated'));
    const recipients = exportRecipients({
      ...NONE,
      feedEvents,
      webhooks: [
        endpoint({ first_position: 1, position: 5, types: JSON.stringify(['patient.updated']) }),
        endpoint({ id: 'wh-2', name: 'Removed', url: 'not a url', first_position: 6, position: 6 }),
      ],
    });
    assert.deepEqual(recipients.webhooks, [
      {
        endpoint_id: 'wh-1',
        name: 'Labor',
        host: 'labor.example',
        first_at: feedEvents[1]!.occurred_at,
        last_at: feedEvents[4]!.occurred_at,
        events: 3,
      },
    ]);
  });

  it('counts, for an endpoint added before 1.3.0 kept no first position, the events from when it was added', () => {
    const recipients = exportRecipients({
      ...NONE,
      feedEvents: [
        feedEvent(1, 'patient.created', '2026-01-31T23:59:59.999Z'),
        feedEvent(2, 'patient.updated', '2026-02-01T00:00:00.000Z'),
      ],
      webhooks: [endpoint({ first_position: null, position: 9, created_at: '2026-02-01T00:00:00.000Z' })],
    });
    assert.deepEqual(
      recipients.webhooks.map((webhook) => [webhook.first_at, webhook.events]),
      [['2026-02-01T00:00:00.000Z', 1]],
    );
  });

  it('names the SMS gateway and the e-mail server by their hosts for the reminders they carried, sent ones only', () => {
    const recipients = exportRecipients({
      ...NONE,
      reminders: [
        reminder('sent', 'sms', '2026-03-02T09:00:00.000Z'),
        reminder('failed', 'sms', null),
        reminder('sent', 'email', '2026-03-04T09:00:00.000Z'),
        reminder('sent', 'sms', '2026-03-01T09:00:00.000Z'),
        reminder('scheduled', null, null),
      ],
      smsHost: 'api.twilio.com',
      smtpHost: 'mail.praxis.at',
    });
    assert.deepEqual(recipients.messages, [
      { channel: 'sms', via: 'api.twilio.com', first_at: '2026-03-01T09:00:00.000Z', last_at: '2026-03-02T09:00:00.000Z', count: 2 },
      { channel: 'email', via: 'mail.praxis.at', first_at: '2026-03-04T09:00:00.000Z', last_at: '2026-03-04T09:00:00.000Z', count: 1 },
    ]);
  });
});

describe('hostOf', () => {
  it('gives the host of a URL without its port, and null for no URL', () => {
    assert.equal(hostOf('https://sms.example.com:8443/send?x=1'), 'sms.example.com');
    assert.equal(hostOf('http://[::1]:8080/'), '[::1]');
    for (const url of ['not a url', '', null, undefined]) assert.equal(hostOf(url), null, String(url));
  });
});

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { sendSms } from '../../../src/adapters/sms-gateway-client.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { sendDueReminders } from '../../../src/domain/reminders/send-reminders.js';
import { SET_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { REMOVE_SMS_GATEWAY, SET_SMS_GATEWAY, SHOW_SMS_GATEWAY } from '../../../src/domain/reminders/set-sms-gateway.js';
import { setClinicCountry, setClinicTimeZone } from '../../../src/domain/settings.js';
import { connectionRunner, performUseCase, type AnyUseCase } from '../../../src/domain/use-case.js';
import { AppError, ValidationError } from '../../../src/errors.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { startGateway } from '../../helpers/local-sms-gateway.js';

/**
 * Sending reminders by SMS (interface 1.3.0, "Channels and replies"): Twilio's real API (form POST
 * to Messages.json, Basic auth, the `sid`; its error JSON) and a generic JSON gateway (the body
 * template filled inside its strings, headers with {reference}, JSON Pointers), served locally.
 */
describe('reminders: sending by SMS through a gateway (domain)', () => {
  const data = useTestDatabase({ each: true });
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());
  afterEach(() => {
    mock.timers.reset();
    gateway.received.length = 0;
  });
  const at = (iso: string) => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  };
  const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
  const run = <R>(useCase: AnyUseCase, request: object) => performUseCase(useCase as never, data.db, request, desk) as R;
  const pass = () => sendDueReminders(data.db, connectionRunner(data.db), { mailer: null, sendSms });
  const row = (appointmentId: string) =>
    data.db.prepare('SELECT * FROM reminders WHERE appointment_id = ?').get(appointmentId) as Record<string, unknown>;
  const refusal = (act: () => unknown) => {
    try {
      act();
    } catch (error) {
      if (error instanceof AppError) return error.code;
      if (error instanceof ValidationError) return error.issues.map((found) => found.loc.join('.'));
      throw error;
    }
    assert.fail('not refused');
  };
  /** A clinic in Vienna (AT) with one rule of a day; Lena's mobile written as the desk types it; her appointment on 02.12.2026 at 14:00. */
  const setUp = (gatewayBody: Record<string, unknown>) => {
    at('2026-11-28T08:00:00Z');
    setClinicTimeZone(data.db, 'Europe/Vienna');
    setClinicCountry(data.db, 'AT');
    run(SET_CLINIC_NAME, { body: { name: 'Ordination Dr. Huber' } });
    run(SET_REMINDERS, { body: { before: ['1d'], quiet_hours: 'off' } });
    run(SET_SMS_GATEWAY, { body: gatewayBody });
    const patientId = createTestPatient(data.db, { first_name: 'Lena', mobile: '0664 / 123 45 67' }).id;
    const appointment = run<{ id: string }>(BOOK_APPOINTMENT, {
      body: { patient_id: patientId, start_at: '2026-12-02T14:00:00', end_at: '2026-12-02T14:30:00' },
    });
    at('2026-12-01T13:00:05Z');
    return appointment;
  };
  const twilio = () => ({ preset: 'twilio', account: 'AC0123456789', token: 'secret-token', from: '+43720123456', base_url: gateway.url });

  it("sends through Twilio's Messages API: a form POST with Basic auth, the number in E.164, the sid kept", async () => {
    const appointment = setUp(twilio());
    gateway.answer(201, { sid: 'SM0f1e2d3c4b5a', status: 'queued' });
    assert.deepEqual(
      (await pass()).map((o) => o.state),
      ['sent'],
    );
    const [request] = gateway.received;
    assert.deepEqual([request!.method, request!.path], ['POST', '/2010-04-01/Accounts/AC0123456789/Messages.json']);
    assert.equal(request!.headers.authorization, `Basic ${Buffer.from('AC0123456789:secret-token').toString('base64')}`);
    assert.equal(request!.headers['content-type'], 'application/x-www-form-urlencoded');
    const form = new URLSearchParams(request!.body);
    assert.deepEqual([form.get('To'), form.get('From')], ['+436641234567', '+43720123456']);
    assert.match(form.get('Body')!, /^Hallo Lena, Ihr Termin bei Ordination Dr\. Huber ist am 02\.12\.2026 um 14:00\. Antworten Sie C/);
    const sent = row(appointment.id);
    assert.deepEqual(
      [sent.state, sent.channel, sent.recipient, sent.provider_message_id, sent.subject],
      ['sent', 'sms', '+436641234567', 'SM0f1e2d3c4b5a', null],
    );
  });

  it('ends a Twilio refusal as failed (rejected) with its code and message, and retries a 503', async () => {
    const appointment = setUp(twilio());
    gateway.answer(503, 'Service Unavailable');
    assert.deepEqual(
      (await pass()).map((o) => o.state),
      ['retry'],
    );
    assert.equal(row(appointment.id).error, 'HTTP 503: Service Unavailable');
    at('2026-12-01T13:01:05Z');
    gateway.answer(400, { code: 21211, message: "The 'To' number +436641234567 is not a valid phone number.", status: 400 });
    assert.deepEqual(
      (await pass()).map((o) => [o.state, o.reason]),
      [['failed', 'rejected']],
    );
    assert.equal(row(appointment.id).error, "HTTP 400: 21211 The 'To' number +436641234567 is not a valid phone number.");
  });

  it('fills a generic gateway’s template inside its strings, JSON-escaped, sends its headers, and reads the id at its pointer', async () => {
    const appointment = setUp({
      preset: 'generic',
      url: `${gateway.url}/v1/sms`,
      header: ['X-Api-Key: k-123', 'Idempotency-Key: {reference}'],
      body_template: '{"recipient":"{to}","sender":"{from}","message":"{text}","meta":{"ref":"{reference}"}}',
      from: '+43720123456',
      id_pointer: '/data/0/id',
    });
    run(SET_REMINDERS, { body: { sms_template: 'Hi "{first_name}" \\ {date}' } });
    gateway.answer(200, { data: [{ id: 42 }] });
    assert.deepEqual(
      (await pass()).map((o) => o.state),
      ['sent'],
    );
    const [request] = gateway.received;
    const sent = row(appointment.id);
    assert.deepEqual(JSON.parse(request!.body), {
      recipient: '+436641234567',
      sender: '+43720123456',
      message: 'Hi "Lena" \\ 02.12.2026',
      meta: { ref: sent.id },
    });
    assert.deepEqual(
      [request!.headers['x-api-key'], request!.headers['idempotency-key'], request!.headers['content-type']],
      ['k-123', sent.id, 'application/json'],
    );
    assert.equal(sent.provider_message_id, '42');
  });

  it('repeats a send of unknown outcome only through a generic gateway told the reference, which drops a repeat', async () => {
    const withReference = setUp({ preset: 'generic', url: gateway.url, body_template: '{"to":"{to}","text":"{text}","id":"{reference}"}' });
    data.db
      .prepare(
        "UPDATE reminders SET lease_until = '2026-12-01T13:00:00.000Z', attempts = 1, channel = 'sms', recipient = '+436641234567' WHERE appointment_id = ?",
      )
      .run(withReference.id);
    gateway.answer(200, { id: 'm-1' });
    assert.deepEqual(
      (await pass()).map((o) => o.state),
      ['sent'],
    );
    assert.equal(JSON.parse(gateway.received[0]!.body).id, row(withReference.id).id);
    run(SET_SMS_GATEWAY, { body: twilio() });
    const patientId = createTestPatient(data.db, { mobile: '+436641234599' }).id;
    at('2026-11-28T08:00:00Z');
    const withoutReference = run<{ id: string }>(BOOK_APPOINTMENT, {
      body: { patient_id: patientId, start_at: '2026-12-03T14:00:00', end_at: '2026-12-03T14:30:00' },
    });
    data.db
      .prepare("UPDATE reminders SET lease_until = '2026-12-02T13:00:00.000Z', attempts = 1, channel = 'sms' WHERE appointment_id = ?")
      .run(withoutReference.id);
    at('2026-12-02T13:00:05Z');
    assert.deepEqual(
      (await pass()).map((o) => [o.state, o.reason]),
      [['failed', 'outcome_unknown']],
    );
    assert.equal(gateway.received.length, 1, 'not sent again');
  });

  it('does not repeat a lost send to another number, even through a gateway that drops repeats', async () => {
    const appointment = setUp({ preset: 'generic', url: gateway.url, body_template: '{"to":"{to}","text":"{text}","id":"{reference}"}' });
    data.db
      .prepare(
        "UPDATE reminders SET lease_until = '2026-12-01T13:00:00.000Z', attempts = 1, channel = 'sms', recipient = '+436640000000' WHERE appointment_id = ?",
      )
      .run(appointment.id);
    assert.deepEqual(
      (await pass()).map((o) => [o.state, o.reason]),
      [['failed', 'outcome_unknown']],
    );
    assert.equal(gateway.received.length, 0);
  });

  it('keeps the token and header values, shows neither, and refuses what a preset does not take', () => {
    setUp({ preset: 'generic', url: gateway.url, header: ['Authorization: Bearer s3cr3t'], body_template: '{"to":"{to}"}' });
    const shown = run<Record<string, unknown>>(SHOW_SMS_GATEWAY, {});
    assert.deepEqual(shown, { preset: 'generic', url: gateway.url, from: null, headers: ['Authorization'], inbound: null });
    assert.ok(!JSON.stringify(run(SHOW_SMS_GATEWAY, {})).includes('s3cr3t'));
    assert.deepEqual(
      refusal(() => run(SET_SMS_GATEWAY, { body: { preset: 'twilio', from: '+43720123456', url: gateway.url } })),
      ['body.account', 'body.token', 'body.url'],
    );
    assert.equal(
      refusal(() => run(SET_SMS_GATEWAY, { body: { preset: 'generic', url: gateway.url, body_template: '{"to":{to}}' } })),
      'TEMPLATE_INVALID',
    );
    assert.equal(
      refusal(() => run(SET_SMS_GATEWAY, { body: { preset: 'generic', url: gateway.url, body_template: '["{to}"]' } })),
      'TEMPLATE_INVALID',
    );
    assert.deepEqual(
      refusal(() => run(SET_SMS_GATEWAY, { body: { preset: 'generic', url: 'ftp://x', header: ['no colon'], body_template: '{}' } })),
      ['body.url', 'body.header.0'],
    );
    assert.deepEqual(run(REMOVE_SMS_GATEWAY, {}), { removed: true });
    assert.equal(run(SHOW_SMS_GATEWAY, {}), null);
  });
});

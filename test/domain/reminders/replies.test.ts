import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { fetchReplies } from '../../../src/adapters/sms-gateway-client.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { answerOf, LIST_REPLIES, readReplies } from '../../../src/domain/reminders/replies.js';
import { SET_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { SET_SMS_GATEWAY } from '../../../src/domain/reminders/set-sms-gateway.js';
import { setClinicCountry, setClinicTimeZone } from '../../../src/domain/settings.js';
import { connectionRunner, performUseCase, type AnyUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

/** A local server that lists messages as a gateway would: `route` answers each path and query, every request's URL kept. */
async function startInbox(): Promise<{ url: string; asked: string[]; route: (url: string) => unknown; close(): Promise<void> }> {
  const asked: string[] = [];
  const inbox = {
    url: '',
    asked,
    route: (_url: string): unknown => undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    asked.push(request.url!);
    const page = inbox.route(request.url!);
    response.writeHead(page === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(page ?? { message: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  inbox.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return inbox;
}

/**
 * Replies to SMS reminders (interface 1.3.0, "Channels and replies"): read outward from a local
 * server speaking Twilio's message listing (inbound only, paged by next_page_uri) and a generic
 * gateway's; yes and no in German and English confirm and decline the appointment the number's
 * reminder was for, each reply once; the rest waits for the desk.
 */
describe('reminders: replies by SMS (domain)', () => {
  const data = useTestDatabase({ each: true });
  let inbox: Awaited<ReturnType<typeof startInbox>>;
  before(async () => {
    inbox = await startInbox();
  });
  after(() => inbox.close());
  afterEach(() => {
    mock.timers.reset();
    inbox.asked.length = 0;
    inbox.route = () => undefined;
  });
  const at = (iso: string) => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  };
  const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
  const run = <R>(useCase: AnyUseCase, request: object) => performUseCase(useCase as never, data.db, request, desk) as R;
  const read = () => readReplies(data.db, connectionRunner(data.db), fetchReplies);
  const appointmentOf = (id: string) =>
    data.db.prepare('SELECT patient_confirmed_at, patient_declined_at FROM appointments WHERE id = ?').get(id) as Record<
      string,
      string | null
    >;
  /** Lena's appointment on 02.12.2026 at 14:00 Vienna, its SMS reminder sent to +436641234567 the day before. */
  const setUp = (gateway: Record<string, unknown>) => {
    at('2026-11-28T08:00:00Z');
    setClinicTimeZone(data.db, 'Europe/Vienna');
    setClinicCountry(data.db, 'AT');
    run(SET_CLINIC_NAME, { body: { name: 'Ordination Dr. Huber' } });
    run(SET_REMINDERS, { body: { before: ['1d'], quiet_hours: 'off' } });
    run(SET_SMS_GATEWAY, { body: gateway });
    const patientId = createTestPatient(data.db, { first_name: 'Lena', mobile: '0664 1234567' }).id;
    const appointment = run<{ id: string }>(BOOK_APPOINTMENT, {
      body: { patient_id: patientId, start_at: '2026-12-02T14:00:00', end_at: '2026-12-02T14:30:00' },
    });
    data.db
      .prepare(
        "UPDATE reminders SET state = 'sent', channel = 'sms', recipient = '+436641234567', sent_at = '2026-12-01T13:00:05.000Z' WHERE appointment_id = ?",
      )
      .run(appointment.id);
    at('2026-12-01T15:00:00Z');
    return { appointment, patientId };
  };

  it('reads yes and no in German and English, in any case, with punctuation and spaces around', () => {
    for (const text of ['C', 'c', ' ja! ', 'JA', 'J', 'Yes.', 'ok', 'OK!!']) assert.equal(answerOf(text), 'confirm', text);
    for (const text of ['X', 'x.', 'Nein', 'NO', 'n', 'Storno!', '  nein  ']) assert.equal(answerOf(text), 'decline', text);
    for (const text of ['Ja bitte', 'maybe', '', 'Wann?', 'C X']) assert.equal(answerOf(text), 'unknown', text);
  });

  it("confirms from Twilio's inbound messages, page by page, each once; outbound ones and unknown numbers aside", async () => {
    const { appointment, patientId } = setUp({ preset: 'twilio', account: 'AC42', token: 't', from: '+43720123456', base_url: inbox.url });
    const list = '/2010-04-01/Accounts/AC42/Messages.json';
    const first = {
      messages: [
        {
          sid: 'SM1',
          from: '+436641234567',
          to: '+43720123456',
          body: 'Ja!',
          direction: 'inbound',
          date_sent: 'Tue, 01 Dec 2026 14:30:00 +0000',
        },
        {
          sid: 'SM0',
          from: '+43720123456',
          to: '+436641234567',
          body: 'Hallo Lena …',
          direction: 'outbound-api',
          date_sent: 'Tue, 01 Dec 2026 13:00:05 +0000',
        },
        {
          sid: 'SM2',
          from: '+4917612345678',
          to: '+43720123456',
          body: 'X',
          direction: 'inbound',
          date_sent: 'Tue, 01 Dec 2026 14:35:00 +0000',
        },
      ],
      next_page_uri: `${list}?To=%2B43720123456&PageSize=100&Page=1&PageToken=PA1`,
    };
    const second = {
      messages: [
        {
          sid: 'SM3',
          from: '+436641234567',
          to: '+43720123456',
          body: 'Wann genau?',
          direction: 'inbound',
          date_sent: 'Tue, 01 Dec 2026 14:40:00 +0000',
        },
      ],
      next_page_uri: null,
    };
    inbox.route = (url) => (!url.startsWith(`${list}?To=%2B43720123456&`) ? undefined : url.includes('PageToken=PA1') ? second : first);
    const handled = await read();
    assert.deepEqual(
      handled.map((reply) => [reply.provider_id, reply.outcome]),
      [
        ['twilio:SM1', 'confirm'],
        ['twilio:SM2', 'unmatched'],
        ['twilio:SM3', 'unknown'],
      ],
    );
    assert.match(appointmentOf(appointment.id).patient_confirmed_at!, /^2026-12-01T15:00/);
    const feed = data.db.prepare("SELECT type, data FROM change_events WHERE type LIKE 'appointment.confirmed'").all() as {
      data: string;
    }[];
    assert.deepEqual(
      feed.map((event) => JSON.parse(event.data).via),
      ['sms'],
    );
    const trail = data.db.prepare("SELECT actor_type, patient_id FROM audit_events WHERE action = 'appointment.confirm'").all();
    assert.deepEqual(trail, [{ actor_type: 'system', patient_id: patientId }]);
    assert.equal(inbox.asked[0], `${list}?To=%2B43720123456&DateSent%3E%3D2026-11-29&PageSize=100`);
    // Asked again, from the UTC day before the newest reply: every id is remembered, nothing happens twice.
    assert.deepEqual(await read(), []);
    assert.equal(inbox.asked[2], `${list}?To=%2B43720123456&DateSent%3E%3D2026-11-30&PageSize=100`);
    const shown = run<{ outcome: string; from: string; text: string; appointment_number: string | null }[]>(LIST_REPLIES, { query: {} });
    assert.deepEqual(
      shown.map((reply) => [reply.outcome, reply.from, reply.text]),
      [
        ['unknown', '+436641234567', 'Wann genau?'],
        ['unmatched', '+4917612345678', 'X'],
      ],
    );
    assert.equal(run<unknown[]>(LIST_REPLIES, { query: { all: true } }).length, 3);
  });

  it("declines from a generic gateway's inbound list, asking since the newest reply less 10 minutes; a repeated no records nothing more", async () => {
    const { appointment } = setUp({
      preset: 'generic',
      url: `${inbox.url}/send`,
      body_template: '{"to":"{to}","text":"{text}"}',
      inbound_url: `${inbox.url}/inbox?since={since}`,
    });
    inbox.route = (url) => (url.startsWith('/inbox?since=') ? { messages: [{ id: 7, from: '0664 1234567', text: 'NEIN' }] } : undefined);
    assert.deepEqual(
      (await read()).map((reply) => reply.outcome),
      ['decline'],
    );
    assert.equal(inbox.asked[0], `/inbox?since=${encodeURIComponent('2026-11-30T14:50:00.000Z')}`);
    assert.deepEqual(appointmentOf(appointment.id), { patient_confirmed_at: null, patient_declined_at: '2026-12-01T15:00:00.000Z' });
    inbox.route = (url) =>
      url.startsWith('/inbox?since=')
        ? [
            { id: 7, from: '0664 1234567', text: 'NEIN' },
            { id: 8, from: '+436641234567', text: 'nein.' },
          ]
        : undefined;
    assert.deepEqual(
      (await read()).map((reply) => [reply.provider_id, reply.outcome]),
      [['generic:8', 'decline']],
    );
    assert.equal(inbox.asked[1], `/inbox?since=${encodeURIComponent('2026-12-01T14:50:00.000Z')}`);
    const declined = data.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'appointment.decline'").get() as { n: number };
    assert.equal(declined.n, 1, 'the second no changed nothing');
  });
});

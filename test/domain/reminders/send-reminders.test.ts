import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import { after, afterEach, before, describe, it, mock } from 'node:test';
import { createSmtpMailer } from '../../../src/adapters/smtp-mailer.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { UPDATE_APPOINTMENT } from '../../../src/domain/appointments/update-appointment.js';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { sendDueReminders, type ReminderChannels } from '../../../src/domain/reminders/send-reminders.js';
import { SET_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { setClinicContactRule, setClinicCountry, setClinicTimeZone } from '../../../src/domain/settings.js';
import { connectionRunner, performUseCase, type AnyUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { closedPort, startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';

/**
 * Sending reminders by e-mail (interface 1.3.0, "Sending", "Channels and replies"), against a real
 * SMTP server, on the program's clock moved by the test: each due reminder sent once, what was
 * sent kept, every other outcome ended with its reason.
 */
describe('reminders: sending by e-mail (domain)', () => {
  const data = useTestDatabase({ each: true });
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(() => sink.close());
  afterEach(() => {
    mock.timers.reset();
    sink.messages.length = 0;
  });
  const at = (iso: string) => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  };
  const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
  const run = <R>(useCase: AnyUseCase, request: object) => performUseCase(useCase as never, data.db, request, desk) as R;
  const mailer = () => createSmtpMailer(sink.url, 'praxis@example.org');
  const pass = (channels: ReminderChannels = { mailer: mailer(), sendSms: null }) =>
    sendDueReminders(data.db, connectionRunner(data.db), channels);
  const row = (appointmentId: string) =>
    data.db.prepare('SELECT * FROM reminders WHERE appointment_id = ? ORDER BY seq').get(appointmentId) as Record<string, unknown>;
  /** A clinic in Vienna, country AT, with one rule of a day and no quiet hours; an appointment on 02.12.2026 at 14:00. */
  const setUp = (patient: Record<string, unknown> = {}) => {
    at('2026-11-28T08:00:00Z');
    setClinicTimeZone(data.db, 'Europe/Vienna');
    setClinicCountry(data.db, 'AT');
    run(SET_CLINIC_NAME, { body: { name: 'Ordination Dr. Huber' } });
    run(SET_REMINDERS, { body: { before: ['1d'], quiet_hours: 'off' } });
    const patientId = createTestPatient(data.db, { first_name: 'Lena', email: 'lena@example.org', ...patient }).id;
    return run<{ id: string; appointment_number: string }>(BOOK_APPOINTMENT, {
      body: { patient_id: patientId, start_at: '2026-12-02T14:00:00', end_at: '2026-12-02T14:30:00' },
    });
  };

  it('sends a due reminder once, in the clinic language, keeps what was sent, and records it (system)', async () => {
    const appointment = setUp();
    at('2026-12-01T12:59:00Z');
    assert.deepEqual(await pass(), [], 'not due yet');
    at('2026-12-01T13:00:10Z');
    const outcomes = await pass();
    assert.deepEqual(
      outcomes.map((o) => o.state),
      ['sent'],
    );
    const [mail] = await sink.waitFor(1);
    assert.deepEqual(mail!.to, ['lena@example.org']);
    assert.match(mail!.raw, /^Subject: Ihr Termin am 02\.12\.2026 um 14:00 bei Ordination Dr\. Huber\r?$/m);
    assert.match(mail!.raw, /Guten Tag Lena,/);
    const sent = row(appointment.id);
    assert.deepEqual(
      [sent.state, sent.reason, sent.channel, sent.recipient, sent.attempts, sent.sent_at, sent.lease_until],
      ['sent', null, 'email', 'lena@example.org', 1, '2026-12-01T13:00:10.000Z', null],
    );
    assert.match(sent.provider_message_id as string, new RegExp(`^<${sent.id as string}@.+>$`));
    assert.match(mail!.raw, new RegExp(`^Message-ID: ${(sent.provider_message_id as string).replace(/[.]/g, '\\.')}\\r?$`, 'mi'));
    assert.match(sent.text as string, /am 02\.12\.2026 um 14:00/);
    const appointmentRow = data.db
      .prepare('SELECT confirmation_reminder_sent_at AS at FROM appointments WHERE id = ?')
      .get(appointment.id) as { at: string };
    assert.equal(appointmentRow.at, '2026-12-01T13:00:10.000Z');
    const feed = data.db.prepare("SELECT data FROM change_events WHERE type = 'reminder.updated'").all() as { data: string }[];
    assert.deepEqual(
      feed.map((event) => JSON.parse(event.data)),
      [
        {
          reminder_id: sent.id,
          appointment_id: appointment.id,
          appointment_number: appointment.appointment_number,
          state: 'sent',
          reason: null,
          channel: 'email',
        },
      ],
    );
    const trail = data.db.prepare("SELECT actor_type, actor_name, subject_id FROM audit_events WHERE action = 'reminder.send'").all();
    assert.deepEqual(trail, [{ actor_type: 'system', actor_name: 'clinic serve', subject_id: sent.id }]);
    at('2026-12-01T13:05:00Z');
    assert.deepEqual(await pass(), []);
    assert.equal(sink.messages.length, 1);
  });

  it('skips a patient who opted out, one without an address, and one whose address has no channel set up', async () => {
    const optedOut = setUp({ reminders_opt_out: true });
    setClinicContactRule(data.db, 'none');
    const book = (patient: Record<string, unknown>) => {
      const patientId = createTestPatient(data.db, patient).id;
      return run<{ id: string }>(BOOK_APPOINTMENT, {
        body: { patient_id: patientId, start_at: '2026-12-02T14:00:00', end_at: '2026-12-02T14:30:00' },
      });
    };
    const noAddress = book({ email: null, mobile: null });
    const mobileOnly = book({ email: null, mobile: '0664 1234567' });
    const withEmail = book({});
    at('2026-12-01T13:00:10Z');
    await pass({ mailer: mailer(), sendSms: null }).then(() => undefined);
    assert.deepEqual([row(optedOut.id).state, row(optedOut.id).reason], ['skipped', 'opted_out']);
    assert.deepEqual([row(noAddress.id).state, row(noAddress.id).reason], ['skipped', 'no_address']);
    assert.deepEqual([row(mobileOnly.id).state, row(mobileOnly.id).reason], ['skipped', 'no_channel']);
    assert.equal(row(withEmail.id).state, 'sent');
    // Without --smtp-url an e-mail address has no channel either.
    const patientId = createTestPatient(data.db).id;
    const withoutMailer = run<{ id: string }>(BOOK_APPOINTMENT, {
      body: { patient_id: patientId, start_at: '2026-12-03T14:00:00', end_at: '2026-12-03T14:30:00' },
    });
    at('2026-12-02T13:00:10Z');
    assert.deepEqual(
      (await pass({ mailer: null, sendSms: null })).map((o) => [o.state, o.reason]),
      [['skipped', 'no_channel']],
    );
    assert.equal(row(withoutMailer.id).reason, 'no_channel');
  });

  it('sends a reminder a running server reaches a little late (it was busy); expires one reached far too late, or due a minute before the server started', async () => {
    const runner = connectionRunner(data.db);
    const channels = () => ({ mailer: mailer(), sendSms: null });
    const pastDue = (dueIso: string, nowIso: string, runningSinceIso: string) => {
      const appointment = setUp();
      // Due 20 minutes before the appointment (13:00Z).
      data.db.prepare('UPDATE reminders SET due_at = ? WHERE appointment_id = ?').run(dueIso, appointment.id);
      at(nowIso);
      return sendDueReminders(data.db, runner, channels(), { runningSince: Date.parse(runningSinceIso) });
    };
    const states = async (outcomes: Promise<{ state: string; reason: string | null }[]>) =>
      (await outcomes).map((o) => [o.state, o.reason]);
    assert.deepEqual(
      await states(pastDue('2026-12-02T12:40:00.000Z', '2026-12-02T12:43:00Z', '2026-12-02T12:39:00Z')),
      [['sent', null]],
      'three minutes late',
    );
    assert.deepEqual(
      await states(pastDue('2026-12-02T12:40:00.000Z', '2026-12-02T12:46:00Z', '2026-12-02T12:39:00Z')),
      [['expired', 'missed']],
      'six minutes late: the PC slept, or the database stayed locked',
    );
    assert.deepEqual(
      await states(pastDue('2026-12-02T12:40:00.000Z', '2026-12-02T12:42:00Z', '2026-12-02T12:41:30Z')),
      [['expired', 'missed']],
      'its minute had passed when the server started',
    );
  });

  it('never sends a reminder once its appointment has begun, even one due a day before it', async () => {
    const appointment = setUp();
    at('2026-12-02T13:00:30Z');
    assert.deepEqual(
      (
        await sendDueReminders(
          data.db,
          connectionRunner(data.db),
          { mailer: mailer(), sendSms: null },
          { runningSince: Date.parse('2026-12-01T00:00:00Z') },
        )
      ).map((o) => [o.state, o.reason]),
      [['expired', 'missed']],
    );
    assert.equal(row(appointment.id).state, 'expired');
    assert.equal(sink.messages.length, 0);
  });

  it('when one lane fails, the others take no more and the pass ends with nothing in flight, throwing what failed', async () => {
    for (let i = 0; i < 8; i++) setUp();
    at('2026-12-01T13:00:30Z');
    let sends = 0;
    let inFlight = 0;
    const slow = {
      send: async () => {
        sends += 1;
        inFlight += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        inFlight -= 1;
      },
    };
    // Writing the first outcome fails outside what the sender catches (the database stayed locked).
    const runner = connectionRunner(data.db);
    const breaking = {
      run: async <R>(access: 'read' | 'write' | 'read-then-write', work: () => R) => {
        if (access === 'write') throw new Error('the database stayed locked');
        return runner.run(access, work);
      },
    };
    await assert.rejects(sendDueReminders(data.db, breaking as typeof runner, { mailer: slow, sendSms: null }), /stayed locked/);
    assert.equal(inFlight, 0, 'nothing still being sent');
    const sentBefore = sends;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(sends, sentBefore, 'no lane took another');
    assert.ok(sends <= 4, `${sends} sent: one per lane at most`);
  });

  it('sends many due reminders in one pass, a few at once, each once; a stopped pass takes no more', async () => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    const appointments = Array.from({ length: 12 }, () => setUp());
    at('2026-12-01T13:00:30Z');
    const runner = connectionRunner(data.db);
    const stopped = new AbortController();
    stopped.abort();
    assert.deepEqual(await sendDueReminders(data.db, runner, { mailer: mailer(), sendSms: null }, { signal: stopped.signal }), []);
    const outcomes = await sendDueReminders(data.db, runner, { mailer: mailer(), sendSms: null });
    assert.equal(outcomes.filter((o) => o.state === 'sent').length, 12);
    assert.equal(new Set(outcomes.map((o) => o.reminder_id)).size, 12);
    await sink.waitFor(12);
    assert.equal(sink.messages.length, 12);
    for (const appointment of appointments) assert.equal(row(appointment.id).state, 'sent');
  });

  it('expires a reminder missed while no server ran when the appointment is less than an hour away, and sends it otherwise', async () => {
    const appointment = setUp();
    at('2026-12-02T13:10:00Z');
    assert.deepEqual(
      (await pass()).map((o) => [o.state, o.reason]),
      [['expired', 'missed']],
    );
    assert.equal(sink.messages.length, 0);
    const later = setUp();
    data.db.prepare("UPDATE reminders SET due_at = '2026-12-01T13:00:00.000Z' WHERE appointment_id = ?").run(later.id);
    at('2026-12-02T11:00:00Z');
    assert.deepEqual(
      (await pass()).map((o) => o.state),
      ['sent'],
    );
    assert.equal(row(appointment.id).state, 'expired');
  });

  it('never sends twice: a reminder whose lease ran out (the server stopped mid-send) ends failed, outcome_unknown', async () => {
    const appointment = setUp();
    data.db
      .prepare("UPDATE reminders SET lease_until = '2026-12-01T13:02:00.000Z', attempts = 1 WHERE appointment_id = ?")
      .run(appointment.id);
    at('2026-12-01T13:01:00Z');
    assert.deepEqual(await pass(), [], 'held while its lease runs');
    at('2026-12-01T13:02:30Z');
    assert.deepEqual(
      (await pass()).map((o) => [o.state, o.reason]),
      [['failed', 'outcome_unknown']],
    );
    assert.equal(sink.messages.length, 0);
  });

  it('retries after 1, 2, 4 … minutes while the server cannot be reached, then gives up within an hour of the start', async () => {
    const appointment = setUp();
    const unreachable = { mailer: createSmtpMailer(`smtp://127.0.0.1:${await closedPort()}`, 'praxis@example.org'), sendSms: null };
    at('2026-12-01T13:00:00Z');
    assert.deepEqual(
      (await pass(unreachable)).map((o) => o.state),
      ['retry'],
    );
    let reminder = row(appointment.id);
    assert.deepEqual([reminder.state, reminder.attempts, reminder.next_attempt_at], ['scheduled', 1, '2026-12-01T13:01:00.000Z']);
    assert.match(reminder.error as string, /ECONNREFUSED|connect/i);
    at('2026-12-01T13:01:00Z');
    await pass(unreachable);
    assert.equal(row(appointment.id).next_attempt_at, '2026-12-01T13:03:00.000Z');
    // The day before, an hour before the start: no try is worth it any more.
    data.db.prepare("UPDATE reminders SET next_attempt_at = '2026-12-02T12:30:00.000Z' WHERE appointment_id = ?").run(appointment.id);
    at('2026-12-02T12:30:00Z');
    assert.deepEqual(
      (await pass(unreachable)).map((o) => [o.state, o.reason]),
      [['failed', 'retries_exhausted']],
    );
    reminder = row(appointment.id);
    // Not tried a third time: within the hour nothing is sent.
    assert.deepEqual([reminder.state, reminder.attempts], ['failed', 2]);
  });

  it('ends a reminder the mail server refuses (5xx) as failed, rejected, with its answer', async () => {
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 }));
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const appointment = setUp();
      at('2026-12-01T13:00:00Z');
      const port = (refusing.server.address() as { port: number }).port;
      const outcomes = await pass({ mailer: createSmtpMailer(`smtp://127.0.0.1:${port}`, 'praxis@example.org'), sendSms: null });
      assert.deepEqual(
        outcomes.map((o) => [o.state, o.reason]),
        [['failed', 'rejected']],
      );
      assert.match(row(appointment.id).error as string, /550|mailbox unavailable/);
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });

  it('tries a retry again only while the appointment is an hour away, also after the server was down', async () => {
    const appointment = setUp();
    data.db
      .prepare("UPDATE reminders SET attempts = 1, next_attempt_at = '2026-12-01T13:01:00.000Z' WHERE appointment_id = ?")
      .run(appointment.id);
    at('2026-12-02T12:30:00Z');
    assert.deepEqual(
      (await pass()).map((o) => [o.state, o.reason]),
      [['failed', 'retries_exhausted']],
    );
    assert.equal(sink.messages.length, 0);
  });

  it('keeps one final state for a reminder withdrawn while it was sent, and the trail still says it went out', async () => {
    const appointment = setUp();
    at('2026-12-01T13:00:10Z');
    const real = mailer();
    const cancelling = {
      async send(message: Parameters<typeof real.send>[0]) {
        await real.send(message);
        run(UPDATE_APPOINTMENT, { path: { appointment_id: appointment.id }, body: { status: 'cancelled' } });
      },
    };
    await pass({ mailer: cancelling, sendSms: null });
    const reminder = row(appointment.id);
    assert.deepEqual([reminder.state, reminder.reason], ['withdrawn', 'cancelled']);
    assert.equal((data.db.prepare("SELECT count(*) AS n FROM change_events WHERE type = 'reminder.updated'").get() as { n: number }).n, 0);
    assert.equal((data.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'reminder.send'").get() as { n: number }).n, 1);
  });
});

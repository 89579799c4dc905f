import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { SET_CLINIC_NAME } from '../../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../../src/domain/reminders/set-reminders.js';
import { writeSmsGateway } from '../../src/domain/reminders/sms-gateway.js';
import { setClinicContactRule, setClinicCountry, setClinicTimeZone } from '../../src/domain/settings.js';
import { performUseCase, type AnyUseCase } from '../../src/domain/use-case.js';
import { createTestPatient } from '../helpers/builders.js';
import { lazyFsSkipReason, mountLazyFs, type LazyFs } from '../helpers/lazyfs.js';
import { testingExecutable } from '../helpers/run-cli.js';

/**
 * Issue 46's simulated week: the real server (test/helpers/serve-on-clock.ts) on a clock the test
 * moves from Monday 07:00 to the next Monday, in Vienna, with two rules (1d, 2h) and the quiet
 * hours 20:00-08:00. Patients reached by SMS through a generic gateway that drops repeats by
 * `{reference}`, by e-mail, opted out, without a usable address, and one whose number the
 * gateway refuses; appointments booked, rescheduled, cancelled and arrived over the week through
 * the API; the gateway down for a morning (503); a stop over a lunchtime; `kill -9` while an SMS
 * and while an e-mail is being sent; in the second test a power cut (LazyFS) right after a message
 * was taken. The clock moves from event to event: to each action, and 5 s past each reminder due.
 *
 * Afterwards: every reminder due is final; each sent one reached its patient exactly once (the
 * gateway's references, the mail server's Message-IDs), within 60 s of its due time unless it was
 * retried or due while no server ran; nothing reached anyone for a withdrawn, skipped or expired
 * reminder; the e-mail cut off mid-send ended `failed` (`outcome_unknown`), never sent again.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Monday 7 December 2026, 00:00 in Vienna (UTC+1), as UTC milliseconds. */
const MONDAY = Date.UTC(2026, 11, 6, 23, 0);
/** Clinic time: day 0 is Monday. */
const local = (day: number, hour: number, minute = 0) => MONDAY + day * 24 * HOUR + hour * HOUR + minute * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A generic SMS gateway of the test's own that drops a repeat of a reference it has taken, as the spec's `{reference}` lets it. */
interface Gateway {
  url: string;
  /** Every reference taken (first time only): the messages that reached a phone. */
  delivered: Map<string, { to: string; text: string }>;
  /** POSTs that repeated a reference already taken (dropped, answered as before), and those references. */
  repeats: number;
  repeated: Set<string>;
  /** ok; down (503); hold: the next message is taken but never answered (the server is killed meanwhile). */
  mode: 'ok' | 'down' | 'hold';
  /** Numbers refused for good (400). */
  refused: Set<string>;
  /** A message is held now. */
  holding: boolean;
  /** Called when a message was taken and answered 200 (the power-cut moment). */
  onAnswered?: () => void;
  close(): Promise<void>;
}

async function startGateway(): Promise<Gateway> {
  const gateway: Gateway = {
    url: '',
    delivered: new Map(),
    repeats: 0,
    repeated: new Set(),
    mode: 'ok',
    refused: new Set(),
    holding: false,
    close: async () => {},
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString()) as { to: string; text: string; reference: string };
      const answer = (status: number, body: object) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (gateway.delivered.has(message.reference)) {
        gateway.repeats += 1;
        gateway.repeated.add(message.reference);
        answer(200, { id: `sms-${message.reference}` });
        return;
      }
      if (gateway.mode === 'down') return answer(503, { error: 'service unavailable' });
      if (gateway.refused.has(message.to)) return answer(400, { error: 'unknown subscriber' });
      gateway.delivered.set(message.reference, { to: message.to, text: message.text });
      if (gateway.mode === 'hold') {
        gateway.mode = 'ok';
        gateway.holding = true;
        return; // never answered: the server dies with the request open
      }
      answer(200, { id: `sms-${message.reference}` });
      gateway.onAnswered?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gateway.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/send`;
  gateway.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return gateway;
}

/** A real SMTP server that keeps each message's Message-ID and can hold one message unanswered. */
async function startMailServer() {
  const mail = {
    url: '',
    messageIds: [] as string[],
    /** Hold the next message; then: one is held now. */
    hold: false,
    holding: false,
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const id = /^Message-ID:\s*(\S+)\s*$/im.exec(Buffer.concat(chunks).toString())?.[1] ?? '';
        mail.messageIds.push(id);
        if (mail.hold) {
          mail.hold = false;
          mail.holding = true;
          return; // the whole message arrived, but its 250 never goes: the server dies waiting
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mail.url = `smtp://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  mail.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return mail;
}

/** The server in its own process, on the clock file. */
interface RunningServer {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
}

async function startServer(dataDir: string, clockFile: string, smtpUrl: string): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/serve-on-clock.ts', dataDir, clockFile, smtpUrl], {
    cwd: join(import.meta.dirname, '../..'),
  });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stdout.setEncoding('utf8');
  for await (const chunk of child.stdout) {
    output += chunk as string;
    const line = output.split('\n').find((l) => l.includes('"listening"'));
    if (line !== undefined) return { child, baseUrl: (JSON.parse(line) as { address: string }).address };
  }
  throw new Error(`the server exited before listening:\n${output}`);
}

async function killServer(server: RunningServer, signal: NodeJS.Signals): Promise<void> {
  if (server!.child.exitCode !== null || server!.child.signalCode !== null) return;
  const exited = once(server.child, 'exit');
  server.child.kill(signal);
  await exited;
}

interface WeekOutcome {
  byState: Record<string, number>;
  messages: number;
  repeatsDropped: number;
  powerCuts: number;
  /** The channel of each reminder cut off mid-send whose repeat nobody could drop. */
  unknown: string[];
}

async function simulateWeek(dataDir: string, fs: LazyFs | undefined): Promise<WeekOutcome> {
  const work = mkdtempSync(join(tmpdir(), 'reminder-week-'));
  const clockFile = join(work, 'clock');
  let now = local(0, 7);
  const setClock = (ms: number) => {
    now = ms;
    writeFileSync(clockFile, String(ms));
  };
  const seenFile = `${clockFile}.seen`;
  /** Moves the clock and waits until the server has read it (it looks every 5 ms, and says so in seenFile). */
  const moveClock = async (ms: number) => {
    setClock(ms);
    for (let i = 0; !existsSync(seenFile) || Number(readFileSync(seenFile, 'utf8')) !== ms; i++) {
      if (server!.child.exitCode !== null || server!.child.signalCode !== null) throw new Error('the server died');
      if (i === 2000) throw new Error(`the server has not read the clock ${iso(ms)} within 10 s`);
      await sleep(5);
    }
  };
  setClock(now);
  const gateway = await startGateway();
  const mail = await startMailServer();
  let db: Db = openDatabase(dataDir, { initialiseEmpty: true });
  let server: RunningServer | undefined;
  try {
    return await weekOn();
  } finally {
    // Whatever failed: no server, socket or connection outlives the test (LazyFS must unmount).
    if (server !== undefined) await killServer(server, 'SIGKILL');
    if (db.open) db.close();
    await gateway.close();
    await mail.close();
    rmSync(work, { recursive: true, force: true });
  }

  async function weekOn(): Promise<WeekOutcome> {
    const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
    const run = (useCase: AnyUseCase, body: object) => performUseCase(useCase as never, db, { body }, desk);
    setClinicTimeZone(db, 'Europe/Vienna');
    setClinicCountry(db, 'AT');
    setClinicContactRule(db, 'none');
    run(SET_CLINIC_NAME, { name: 'Ordination Dr. Huber' });
    run(SET_REMINDERS, { before: ['1d', '2h'] });
    writeSmsGateway(db, {
      preset: 'generic',
      url: gateway.url,
      headers: [],
      bodyTemplate: '{"to":"{to}","text":"{text}","reference":"{reference}"}',
      from: 'Praxis',
      idPointer: '/id',
      errorPointer: '/error',
      inboundUrl: null,
    });
    const key = createApiKey(db, { name: 'week' }).key;
    const mobile = (n: number) => `0664 100 ${String(n).padStart(4, '0')}`;
    const patients = [
      ...Array.from(
        { length: 10 },
        (_, i) => createTestPatient(db, { first_name: `Sms${i}`, mobile: mobile(i), email: `sms${i}@example.org` }).id,
      ),
      ...Array.from(
        { length: 4 },
        (_, i) => createTestPatient(db, { first_name: `Mail${i}`, mobile: null, email: `mail${i}@example.org` }).id,
      ),
      createTestPatient(db, { first_name: 'Out', mobile: mobile(90), email: 'out@example.org', reminders_opt_out: true }).id,
      createTestPatient(db, { first_name: 'Nowhere', mobile: '12 34', email: null }).id,
      createTestPatient(db, { first_name: 'Refused', mobile: mobile(99), email: null }).id,
    ];
    gateway.refused.add('+436641000099');
    db.close();

    server = await startServer(dataDir, clockFile, mail.url);
    db = openDatabase(dataDir);
    const api = async (method: string, path: string, body: object) => {
      const response = await fetch(`${server!.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { id: string };
      assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const appointments: string[] = [];
    const book = async (patient: number, start: number) => {
      const { id } = await api('POST', '/appointments', {
        patient_id: patients[patient],
        start_at: iso(start),
        end_at: iso(start + 30 * MINUTE),
      });
      appointments.push(id);
    };
    /** When the test cancelled or moved an appointment: its reminders planned before and due after must never go. */
    const changedAt = new Map<string, number>();
    const move = (index: number, start: number) => {
      changedAt.set(appointments[index]!, now);
      return api('PATCH', `/appointments/${appointments[index]}`, { start_at: iso(start), end_at: iso(start + 30 * MINUTE) });
    };
    const cancel = (index: number) => {
      changedAt.set(appointments[index]!, now);
      return api('PATCH', `/appointments/${appointments[index]}`, { status: 'cancelled' });
    };
    /** When no server ran: a reminder due then was due while none ran. */
    const down: { from: number; to: number }[] = [];
    /**
     * Stops the server (SIGTERM), kills it (kill -9) or cuts the power (kill -9, then every byte not
     * fsynced dropped), lets `pause` of clinic time pass, and starts it again.
     */
    const restart = async (how: 'stop' | 'kill' | 'power', pause: number) => {
      const from = now;
      db.close();
      await killServer(server!, how === 'stop' ? 'SIGTERM' : 'SIGKILL');
      if (how === 'power') await fs!.clearCache();
      db = openDatabase(dataDir);
      // What reached a phone but is not recorded as sent was cut off: the only SMS the server may repeat.
      const sent = new Set((db.prepare("SELECT id FROM reminders WHERE state = 'sent'").all() as { id: string }[]).map((row) => row.id));
      for (const reference of gateway.delivered.keys()) if (!sent.has(reference)) cutOff.add(reference);
      setClock(now + pause);
      down.push({ from, to: now });
      server = await startServer(dataDir, clockFile, mail.url);
    };
    const cutOff = new Set<string>();
    let powerCutDue = false;

    // Monday 07:00: the week's first bookings, one per patient a day, mornings and afternoons.
    for (let day = 1; day <= 6; day++)
      for (let p = 0; p < patients.length; p++) await book(p, local(day, 8 + ((p * 37 + day * 11) % 10), (p % 2) * 30));

    /** What happens when: actions at clinic times, in order. */
    const actions: { at: number; act: () => Promise<unknown> }[] = [
      // Monday: a booking for tomorrow 09:15 (its 1d rule already due: too_late) and a reschedule.
      { at: local(0, 10), act: () => book(0, local(1, 9, 15)) },
      { at: local(0, 11), act: () => move(20, local(4, 16)) },
      // Tuesday: a cancel, and the gateway down 09:00-11:30 (retries after 1, 2, 4 … min).
      { at: local(1, 8, 30), act: () => cancel(40) },
      { at: local(1, 9), act: async () => (gateway.mode = 'down') },
      { at: local(1, 11, 30), act: async () => (gateway.mode = 'ok') },
      // Wednesday: stopped 10:00-14:00 (what fell due meanwhile goes at start while its appointment is an hour away).
      { at: local(2, 10), act: () => restart('stop', 4 * HOUR) },
      // Thursday: kill -9 while an SMS is being sent (the gateway holds it); back 10 minutes later.
      { at: local(3, 7, 55), act: async () => (gateway.mode = 'hold') },
      // Friday: kill -9 while an e-mail is being sent; a cancel and a reschedule.
      { at: local(4, 7, 55), act: async () => (mail.hold = true) },
      { at: local(4, 12), act: () => cancel(55) },
      { at: local(4, 12, 30), act: () => move(70, local(6, 17)) },
      // Saturday: bookings made the same day, an hour and three hours ahead; with LazyFS, the power
      // goes the moment the gateway has answered a message (before the server may have written it down).
      {
        at: local(5, 7, 55),
        act: async () => fs !== undefined && (gateway.onAnswered = () => ((powerCutDue = true), server!.child.kill('SIGKILL'))),
      },
      { at: local(5, 9), act: () => book(1, local(5, 10)) },
      { at: local(5, 9, 5), act: () => book(2, local(5, 12, 5)) },
    ];
    /** Waits until the server has nothing due and nothing in flight at `now` (it reads the clock every 5 ms), or holds a message, or died. */
    const settle = async () => {
      // A pass of the server's reminder sender (every 10 ms) on the clock just read.
      await sleep(20);
      const busy = db.prepare(
        `SELECT count(*) AS n FROM reminders WHERE state = 'scheduled' AND due_at <= @now
         AND ((next_attempt_at IS NULL OR next_attempt_at <= @now) OR lease_until > @now)`,
      );
      for (let i = 0; (busy.get({ now: iso(now) }) as { n: number }).n > 0; i++) {
        if (gateway.holding || mail.holding || server!.child.exitCode !== null || server!.child.signalCode !== null) return;
        if (i === 2000) throw new Error(`the server has not sent what is due at ${iso(now)} within 20 s`);
        await sleep(10);
      }
    };
    /** The next moment the server has something to do: a due time, a retry, a lease running out. */
    const nextDue = () =>
      (
        db
          .prepare(
            `SELECT min(CASE WHEN next_attempt_at IS NOT NULL THEN next_attempt_at WHEN lease_until IS NOT NULL THEN lease_until ELSE due_at END) AS at
             FROM reminders WHERE state = 'scheduled'`,
          )
          .get() as { at: string | null }
      ).at;
    const end = local(7, 7);
    while (now < end) {
      const due = nextDue();
      const nextDueAt = due === null ? Infinity : Date.parse(due) + 5_000;
      await moveClock(Math.max(now + 1_000, Math.min(actions[0]?.at ?? Infinity, nextDueAt, now + 2 * HOUR, end)));
      while (actions[0] !== undefined && actions[0].at <= now) await actions.shift()!.act();
      await settle();
      if (gateway.holding || mail.holding) {
        // The held message reached the phone or the mailbox; the server never heard back.
        gateway.holding = mail.holding = false;
        await restart('kill', 10 * MINUTE);
        await settle();
      }
      if (powerCutDue) {
        powerCutDue = false;
        gateway.onAnswered = undefined;
        await restart('power', 5 * MINUTE);
        await settle();
      }
    }
    await killServer(server!, 'SIGTERM');

    // What the week left.
    const rows = db.prepare('SELECT * FROM reminders ORDER BY due_at').all() as Record<string, any>[];
    const byState: Record<string, number> = {};
    for (const row of rows)
      byState[`${row.state}${row.reason === null ? '' : ` ${row.reason}`}`] =
        (byState[`${row.state}${row.reason === null ? '' : ` ${row.reason}`}`] ?? 0) + 1;

    const wasDown = (at: number) => down.some((window) => at >= window.from && at < window.to);
    const mailed = new Map<string, number>();
    for (const id of mail.messageIds) mailed.set(id, (mailed.get(id) ?? 0) + 1);
    for (const [id, count] of mailed) assert.equal(count, 1, `${id} reached the mailbox ${count} times`);
    const reached = (row: Record<string, any>) =>
      gateway.delivered.has(row.id) ? 1 : [...mailed.keys()].filter((id) => id.startsWith(`<${row.id}@`)).length;
    for (const row of rows) {
      const label = `reminder ${row.id} (${row.state} ${row.reason ?? ''}, due ${row.due_at})`;
      assert.ok(row.state !== 'scheduled' || Date.parse(row.due_at) > end, `${label}: due, never final`);
      if (row.state === 'sent') {
        assert.equal(reached(row), 1, `${label}: reached its patient once`);
        const late = Date.parse(row.sent_at) - Date.parse(row.due_at);
        if (row.attempts === 1 && !wasDown(Date.parse(row.due_at)))
          assert.ok(late <= MINUTE, `${label}: sent ${late} ms after its due time`);
      } else if (!(row.state === 'failed' && row.reason === 'outcome_unknown')) {
        assert.equal(reached(row), 0, `${label}: reached its patient`);
      }
    }
    // What the test cancelled or moved: what was planned before and due after was withdrawn, and went nowhere.
    assert.equal(changedAt.size, 4);
    for (const row of rows) {
      const changed = changedAt.get(row.appointment_id);
      if (changed === undefined || Date.parse(row.created_at) >= changed || Date.parse(row.due_at) <= changed) continue;
      assert.equal(row.state, 'withdrawn', `reminder ${row.id} of an appointment changed at ${iso(changed)}`);
      assert.equal(reached(row), 0);
    }
    // The server repeated only what a kill or the power cut left unrecorded (the gateway dropped those).
    for (const reference of gateway.repeated) assert.ok(cutOff.has(reference), `the SMS of ${reference} was sent twice`);
    // Every message that went out belongs to a reminder.
    const ids = new Set(rows.map((row) => row.id as string));
    for (const reference of gateway.delivered.keys()) assert.ok(ids.has(reference), `an SMS for ${reference}`);
    for (const id of mailed.keys()) assert.ok(ids.has(/^<([^@]+)@/.exec(id)?.[1] ?? ''), `an e-mail ${id}`);
    const unknown = rows.filter((row) => row.reason === 'outcome_unknown').map((row) => row.channel as string);
    return {
      byState,
      unknown,
      messages: gateway.delivered.size + mailed.size,
      repeatsDropped: gateway.repeats,
      powerCuts: down.length - 3,
    };
  }
}

describe('reminders over a simulated week: restarts, kill -9 mid-send, a power cut (issue 46)', () => {
  const options = { skip: testingExecutable ? 'the server runs from source on a clock the test moves' : false, timeout: 300_000 } as const;

  it('sends every due reminder once and in time, none for what was withdrawn, none twice after kill -9', options, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reminder-week-data-'));
    try {
      const outcome = await simulateWeek(dataDir, undefined);
      t.diagnostic(JSON.stringify(outcome));
      assert.ok((outcome.byState.sent ?? 0) >= 100, JSON.stringify(outcome));
      assert.deepEqual(outcome.unknown, ['email'], 'the e-mail cut off mid-send');
      assert.ok(outcome.repeatsDropped >= 1, 'the SMS cut off mid-send was repeated with its reference');
      for (const expected of [
        'expired missed',
        'failed retries_exhausted',
        'skipped opted_out',
        'skipped no_address',
        'skipped too_late',
        'failed rejected',
        'withdrawn cancelled',
        'withdrawn rescheduled',
      ])
        assert.ok((outcome.byState[expected] ?? 0) > 0, `${expected}: ${JSON.stringify(outcome.byState)}`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it(
    'and after a power cut (LazyFS) right after a message was taken',
    { ...options, skip: options.skip || lazyFsSkipReason },
    async (t) => {
      const backing = mkdtempSync(join(tmpdir(), 'reminder-week-backing-'));
      const fs = await mountLazyFs(backing);
      try {
        const outcome = await simulateWeek(fs.mountDir, fs);
        t.diagnostic(JSON.stringify(outcome));
        assert.ok((outcome.byState.sent ?? 0) >= 100, JSON.stringify(outcome));
        assert.equal(outcome.powerCuts, 1);
        // What was in flight at the cut: SMS repeated through the gateway (it drops them), e-mail never again.
        assert.ok(
          outcome.unknown.every((channel) => channel === 'email'),
          JSON.stringify(outcome.unknown),
        );
        assert.ok(outcome.repeatsDropped >= 2, 'the SMS taken just before the cut was repeated with its reference');
      } finally {
        await fs.unmount();
        rmSync(backing, { recursive: true, force: true });
      }
    },
  );
});

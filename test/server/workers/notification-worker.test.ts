import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Db } from '../../../src/db/open-database.js';
import { createApiKey } from '../../../src/domain/api-keys.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildInvoice, buildPatient, buildPayment } from '../../helpers/builders.js';
import { programCommand, runClinic, STOP_SIGNAL } from '../../helpers/run-cli.js';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.js';
import { makeDataDir } from '../../helpers/fixtures.js';
import { checkedFetch } from '../../helpers/contract.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  /** Every JSON log line so far. */
  events: Record<string, unknown>[];
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** `clinic serve --port 0 ...` as a separate process, resolved once it listens. */
function startServe(dataDir: string, args: string[]): Promise<ServeProcess> {
  const [command, ...prefix] = programCommand();
  const child = spawn(command, [...prefix, 'serve', '--data', dataDir, '--port', '0', ...args], { cwd: root, stdio: 'pipe' });
  const events: Record<string, unknown>[] = [];
  let buffered = '';
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before listening`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (!line.startsWith('{')) continue;
        const event = JSON.parse(line) as Record<string, unknown>;
        events.push(event);
        // The delivery worker is set up right after the server listens; its line comes last.
        if (event.event === 'notifications') {
          const listening = events.find((e) => e.event === 'listening');
          resolve({
            child,
            baseUrl: listening?.address as string,
            events,
            stop: () =>
              new Promise((done) => {
                child.removeAllListeners('exit');
                child.on('exit', (code) => done(code));
                child.kill(STOP_SIGNAL);
              }),
          });
        }
      }
    });
  });
}

async function eventually<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('clinic serve delivers notifications', () => {
  let dataDir: string;
  let db: Db;
  let smtp: SmtpSink;
  let key: string;
  before(async () => {
    dataDir = makeDataDir();
    db = openDatabase(dataDir);
    key = createApiKey(db, { name: 'test' }).key;
    smtp = await startSmtpSink();
  });
  after(async () => {
    await smtp.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('emails the patient through --smtp-url once an invoice is paid over HTTP, and stops cleanly on SIGTERM', async () => {
    const patient = createPatient(db, buildPatient({ email: 'payer@example.org' }));
    const invoice = createInvoice(db, buildInvoice(patient.id, { total: '80.00' }));
    const serve = await startServe(dataDir, ['--smtp-url', smtp.url, '--smtp-from', 'front-desk@example.org']);
    let exitCode: number | null | undefined;
    try {
      assert.ok(serve.events.some((e) => e.event === 'notifications' && e.delivery === 'smtp' && e.smtp_host === `127.0.0.1:${smtp.port}`));
      const response = await checkedFetch(`${serve.baseUrl}/invoices/${invoice.id}/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(buildPayment({ amount: 80 })),
      });
      assert.equal(response.status, 200);
      const [mail] = await smtp.waitFor(1, 15_000);
      assert.deepEqual([mail?.from, mail?.to], ['front-desk@example.org', ['payer@example.org']]);
      assert.match(mail?.raw ?? '', new RegExp(`Subject: Invoice ${invoice.invoice_number} is paid`));
      const sent = await eventually(() => {
        const row = db
          .prepare<[string], { status: string; attempts: number }>('SELECT status, attempts FROM notification_outbox WHERE invoice_id = ?')
          .get(invoice.id);
        return row?.status === 'sent' ? row : undefined;
      });
      assert.equal(sent.attempts, 1);
    } finally {
      exitCode = await serve.stop();
    }
    assert.equal(exitCode, 0);
    assert.ok(serve.events.some((e) => e.event === 'stopped'));
    // Only ids reach the log, never the address or the error text.
    assert.ok(!JSON.stringify(serve.events).includes('payer@example.org'));
  });

  it('sends a reminder due while it runs by e-mail (interface 1.3.0), once, with only ids in the log', async () => {
    const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
    performUseCase(SET_CLINIC_NAME, db, { body: { name: 'Praxis am Ring' } }, desk);
    performUseCase(SET_REMINDERS, db, { body: { before: ['1d'], quiet_hours: 'off' } }, desk);
    const patient = createPatient(db, buildPatient({ first_name: 'Lena', email: 'lena@example.org' }));
    const start = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const booked = bookAppointment(
      db,
      { patient_id: patient.id, start_at: start, end_at: new Date(Date.parse(start) + 1_800_000).toISOString() },
      'cli',
    );
    // Due half a minute ago: the pass at start sends it (not missed: it is within its minute).
    db.prepare('UPDATE reminders SET due_at = ? WHERE appointment_id = ?').run(new Date(Date.now() - 30_000).toISOString(), booked.id);
    smtp.messages.length = 0;
    const serve = await startServe(dataDir, ['--smtp-url', smtp.url, '--smtp-from', 'front-desk@example.org']);
    try {
      const [mail] = await smtp.waitFor(1, 15_000);
      assert.deepEqual(mail?.to, ['lena@example.org']);
      assert.match(mail?.raw ?? '', /Hello Lena, this is a reminder|Dear Lena/);
      const sent = await eventually(() => {
        const row = db
          .prepare<[string], { state: string; id: string }>('SELECT state, id FROM reminders WHERE appointment_id = ?')
          .get(booked.id);
        return row?.state === 'sent' ? row : undefined;
      });
      await eventually(() => serve.events.find((e) => e.event === 'reminder_sent' && e.reminder_id === sent.id));
    } finally {
      assert.equal(await serve.stop(), 0);
    }
    assert.equal(smtp.messages.length, 1);
    assert.ok(!JSON.stringify(serve.events).includes('lena@example.org'));
  });

  it('leaves notifications pending without --smtp-url', async () => {
    const patient = createPatient(db, buildPatient());
    const invoice = createInvoice(db, buildInvoice(patient.id, { total: '1' }));
    const serve = await startServe(dataDir, []);
    try {
      assert.ok(serve.events.some((e) => e.event === 'notifications' && e.delivery === 'off'));
      const response = await checkedFetch(`${serve.baseUrl}/invoices/${invoice.id}/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(buildPayment({ amount: 1 })),
      });
      assert.equal(response.status, 200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const row = db
        .prepare<[string], { status: string; attempts: number }>('SELECT status, attempts FROM notification_outbox WHERE invoice_id = ?')
        .get(invoice.id);
      assert.deepEqual(row, { status: 'pending', attempts: 0 });
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });

  it('refuses a malformed CLINIC_SMTP_URL for serve only (exit 2), leaving other commands working', async () => {
    const env = { CLINIC_SMTP_URL: 'http://mail.example.org' };
    const serve = await runClinic(['serve', '--data', dataDir, '--port', '0'], { env });
    assert.equal(serve.code, 2);
    assert.match(serve.stderr, /CLINIC_SMTP_URL: expected smtp:\/\//);
    const flag = await runClinic(['serve', '--data', dataDir, '--port', '0', '--smtp-url', 'mail.example.org']);
    assert.equal(flag.code, 2);
    const list = await runClinic(['invoice', 'list', '--data', dataDir, '--json'], { env });
    assert.equal(list.code, 0, list.stderr);
  });
});

/**
 * Issue 46's two targets for reminders, against `dist/clinic serve` pinned to its core:
 *
 * - Planning reminders adds no more than 10 % to a booking's cost. Two servers side by side, on
 *   two data folders seeded alike: one clinic without reminder rules, one with two (`1d`, `2h`:
 *   two rows planned in each booking's transaction). POST /appointments one at a time, in blocks
 *   that alternate between the two; each way's latency and its server's CPU per booking (/proc).
 *   Neither clinic's rules change during the run, so no block pays for replanning another's.
 * - Sending 1,000 due reminders takes at most 60 s against a gateway answering in 50 ms: a clinic
 *   with 1,000 SMS reminders all due at one instant, a generic gateway of this process that holds
 *   each message 50 ms, and the time from that instant until the last reminder is marked sent.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open-database.js';
import { BOOK_APPOINTMENT } from '../src/domain/appointments/book-appointment.js';
import { SET_CLINIC_COUNTRY, SET_CLINIC_NAME } from '../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../src/domain/reminders/set-reminders.js';
import { SET_SMS_GATEWAY } from '../src/domain/reminders/set-sms-gateway.js';
import { performUseCase, type AnyUseCase } from '../src/domain/use-case.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { seedDeskPatients } from './desk-latency.js';
import { freePort, sendApiRequest, startPinnedServer, type ServerProcess } from './server-process.js';

export interface ReminderCostResult {
  figures: { rules: 'none' | 'two'; latencyMs: number[]; cpuMsPerRequest: number }[];
}

export interface ReminderSendingResult {
  reminders: number;
  gatewayDelayMs: number;
  /** From the instant all were due until the last was marked sent. */
  seconds: number;
  /** Messages the gateway got, and how many of them repeated a reminder already received. */
  received: number;
  repeats: number;
  sent: number;
}

const BLOCK = 50;
const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'bench', name: 'bench', source: 'bench', requestId: null } };

/** Runs a use case on a data folder's database as the desk does. */
function perform<R>(db: ReturnType<typeof openDatabase>, useCase: AnyUseCase, body: object): R {
  return performUseCase(useCase as never, db, { body }, desk) as R;
}

/** A seeded clinic with its name set, rules or none, and an API key; the patients' ids. */
function seedClinic(dataDir: string, rules: readonly string[]): { key: string; patients: string[] } {
  seedDeskPatients(dataDir);
  const db = openDatabase(dataDir);
  try {
    perform(db, SET_CLINIC_NAME, { name: 'Bench Clinic' });
    if (rules.length > 0) perform(db, SET_REMINDERS, { before: rules });
    const key = createApiKey(db, { name: 'bench' }).key;
    const patients = (db.prepare('SELECT id FROM patients ORDER BY id').all() as { id: string }[]).map((p) => p.id);
    return { key, patients };
  } finally {
    db.close();
  }
}

async function startServer(executable: string, dataDir: string, logFile: string, env?: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  return startPinnedServer([executable, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir], {
    port,
    readyPath: '/api/public/v1/health',
    logFile,
    ...(env === undefined ? {} : { env }),
  });
}

export async function measureReminderCost(executable: string, workDir: string, blocks: number): Promise<ReminderCostResult> {
  const clinics = {
    none: seedClinic(join(workDir, 'reminder-cost-none'), []),
    two: seedClinic(join(workDir, 'reminder-cost-two'), ['1d', '2h']),
  };
  const servers = {
    none: await startServer(executable, join(workDir, 'reminder-cost-none'), join(workDir, 'reminder-cost-none.log')),
    two: await startServer(executable, join(workDir, 'reminder-cost-two'), join(workDir, 'reminder-cost-two.log')),
  };
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  // A start a week from now and on, a quarter of an hour apart, with no doctor: no overlap to check.
  const firstStart = Date.now() + 7 * 86_400_000;
  const booked = { none: 0, two: 0 };
  try {
    const figures = { none: { latencyMs: [] as number[], cpu: 0 }, two: { latencyMs: [] as number[], cpu: 0 } };
    for (let block = 0; block < blocks * 2; block++) {
      const rules = block % 2 === 0 ? 'none' : 'two';
      const { key, patients } = clinics[rules];
      const server = servers[rules];
      const cpuBefore = server.cpuSeconds();
      for (let i = 0; i < BLOCK; i++) {
        // Both clinics get the same bookings in the same order.
        const start = firstStart + booked[rules] * 15 * 60_000;
        booked[rules] += 1;
        const body = {
          patient_id: patients[booked[rules] % patients.length],
          start_at: new Date(start).toISOString(),
          end_at: new Date(start + 15 * 60_000).toISOString(),
        };
        const started = process.hrtime.bigint();
        const answer = await sendApiRequest(agent, server.port, 'POST', '/appointments', { authorization: `Bearer ${key}` }, body);
        figures[rules].latencyMs.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (answer.status !== 201) throw new Error(`POST /appointments (${rules} rules): ${answer.status} ${answer.body}`);
      }
      figures[rules].cpu += server.cpuSeconds() - cpuBefore;
    }
    return {
      figures: (['none', 'two'] as const).map((rules) => ({
        rules,
        latencyMs: figures[rules].latencyMs,
        cpuMsPerRequest: (figures[rules].cpu * 1000) / figures[rules].latencyMs.length,
      })),
    };
  } finally {
    agent.destroy();
    await Promise.all([servers.none.stop(), servers.two.stop()]);
  }
}

/** A generic SMS gateway of this process: takes a JSON POST, answers `{"id": n}` after `delayMs`; counts references. */
async function startSlowGateway(delayMs: number) {
  const references: string[] = [];
  const server = createServer((incoming: IncomingMessage, answer) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const { reference } = JSON.parse(Buffer.concat(chunks).toString()) as { reference: string };
      references.push(reference);
      setTimeout(
        () => answer.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: references.length })),
        delayMs,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/messages`,
    references,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function measureReminderSending(
  executable: string,
  workDir: string,
  count = 1000,
  delayMs = 50,
): Promise<ReminderSendingResult> {
  const dataDir = join(workDir, 'reminder-sending');
  const gateway = await startSlowGateway(delayMs);
  const db = openDatabase(dataDir);
  // Due in 20 s: time to book them all and start the server before.
  const dueAt = Math.ceil((Date.now() + 20_000) / 1000) * 1000;
  try {
    perform(db, SET_CLINIC_NAME, { name: 'Bench Clinic' });
    perform(db, SET_CLINIC_COUNTRY, { country: 'AT' });
    perform(db, SET_REMINDERS, { before: ['1d'], quiet_hours: 'off' });
    perform(db, SET_SMS_GATEWAY, {
      preset: 'generic',
      url: gateway.url,
      body_template: '{"to":"{to}","text":"{text}","reference":"{reference}"}',
    });
    for (let i = 0; i < count; i++) {
      const patient = createPatient(db, {
        first_name: `Anna${i}`,
        last_name: 'Muster',
        email: `p${i}@example.org`,
        mobile: `0664 ${1_000_000 + i}`,
      });
      const start = dueAt + 86_400_000;
      perform(db, BOOK_APPOINTMENT, {
        patient_id: patient.id,
        start_at: new Date(start).toISOString(),
        end_at: new Date(start + 900_000).toISOString(),
      });
    }
  } finally {
    db.close();
  }
  const server = await startServer(executable, dataDir, join(workDir, 'reminder-sending.log'));
  const reader = openDatabase(dataDir);
  try {
    const progress = reader.prepare("SELECT count(*) AS sent, max(sent_at) AS last FROM reminders WHERE state = 'sent'");
    const deadline = dueAt + 300_000;
    let done: { sent: number; last: string | null } = { sent: 0, last: null };
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      done = progress.get() as typeof done;
      if (done.sent >= count) break;
    }
    const last = done.last === null ? Date.now() : Date.parse(done.last);
    return {
      reminders: count,
      gatewayDelayMs: delayMs,
      seconds: (last - dueAt) / 1000,
      received: gateway.references.length,
      repeats: gateway.references.length - new Set(gateway.references).size,
      sent: done.sent,
    };
  } finally {
    reader.close();
    await server.stop();
    await gateway.close();
  }
}

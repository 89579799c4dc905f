/**
 * Issue 46: planning reminders adds no more than 10 % to a booking's cost. One `dist/clinic
 * serve` pinned to its core; POST /appointments one at a time, in blocks that alternate between
 * a clinic without reminder rules and one with two (`1d`, `2h`: two rows planned per booking in
 * the booking's transaction), set between blocks by the desk command; each way's latency and the
 * server's CPU per booking (/proc) over its blocks.
 */
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { seedDeskPatients } from './desk-latency.js';
import { freePort, startPinnedServer } from './server-process.js';

export interface ReminderCostResult {
  figures: { rules: 'none' | 'two'; latencyMs: number[]; cpuMsPerRequest: number }[];
}

const BLOCK = 50;

function run(executable: string, args: string[]): string {
  const done = spawnSync(executable, args);
  if (done.status !== 0) throw new Error(`${args.join(' ')} exited ${done.status}: ${done.stderr.toString()}`);
  return done.stdout.toString();
}

/** One POST on a kept-alive connection: its status and body. */
function post(agent: Agent, port: number, path: string, key: string, body: unknown) {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/public/v1${path}`,
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': payload.length },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

export async function measureReminderCost(executable: string, workDir: string, blocks: number): Promise<ReminderCostResult> {
  const dataDir = seedDeskPatients(join(workDir, 'reminder-cost'));
  const clinic = (args: string[]) => run(executable, [...args, '--data', dataDir]);
  const key = (JSON.parse(clinic(['api-key', 'create', '--name', 'bench', '--json'])) as { key: string }).key;
  clinic(['settings', 'set-name', 'Bench Clinic']);
  const patients = (JSON.parse(clinic(['patient', 'find', 'Anna', '--json'])) as { id: string }[]).map((p) => p.id);
  const port = await freePort();
  const server = await startPinnedServer([executable, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir], {
    port,
    readyPath: '/api/public/v1/health',
    logFile: join(workDir, 'reminder-cost-serve.log'),
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // A start a week from now and on, a quarter of an hour apart, with no doctor: no overlap to check.
  const firstStart = Date.now() + 7 * 86_400_000;
  let booked = 0;
  try {
    const figures = { none: { latencyMs: [] as number[], cpu: 0 }, two: { latencyMs: [] as number[], cpu: 0 } };
    for (let block = 0; block < blocks * 2; block++) {
      const rules = block % 2 === 0 ? 'none' : 'two';
      clinic(rules === 'none' ? ['reminders', 'set', '--off'] : ['reminders', 'set', '--before', '1d', '--before', '2h']);
      const cpuBefore = server.cpuSeconds();
      for (let i = 0; i < BLOCK; i++) {
        const start = firstStart + booked * 15 * 60_000;
        booked += 1;
        const body = {
          patient_id: patients[booked % patients.length],
          start_at: new Date(start).toISOString(),
          end_at: new Date(start + 15 * 60_000).toISOString(),
        };
        const started = process.hrtime.bigint();
        const answer = await post(agent, port, '/appointments', key, body);
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
    await server.stop();
  }
}

/**
 * Issue 44: audited reads and writes with a person's session from a desk PC cost no more than
 * with an API key. One `dist/clinic serve` pinned to its core; the same requests, one at a time,
 * alternating key and session in blocks: GET /patients/{id} (an audited read) and POST /patients
 * (a write), each way's latency and the server's CPU per request (/proc) over its blocks.
 */
import { spawnSync } from 'node:child_process';
import { Agent } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { seedDeskPatients } from './desk-latency.js';
import { freePort, sendApiRequest, startPinnedServer } from './server-process.js';

export interface SessionCostResult {
  /** Per request kind and credential: wall milliseconds, and the server's CPU milliseconds per request. */
  figures: { request: string; credential: 'key' | 'session'; latencyMs: number[]; cpuMsPerRequest: number }[];
}

const BLOCK = 50;

function run(executable: string, args: string[], env: NodeJS.ProcessEnv, input?: string): string {
  const done = spawnSync(executable, args, { env, ...(input === undefined ? {} : { input }) });
  if (done.status !== 0) throw new Error(`${args.join(' ')} exited ${done.status}: ${done.stderr.toString()}`);
  return done.stdout.toString();
}

export async function measureSessionCost(executable: string, workDir: string, blocks: number): Promise<SessionCostResult> {
  const dataDir = seedDeskPatients(join(workDir, 'session-cost'));
  const env = { ...process.env, XDG_CONFIG_HOME: mkdtempSync(join(workDir, 'session-cost-config-')) };
  const clinic = (args: string[], input?: string) => run(executable, [...args, '--data', dataDir], env, input);
  const key = (JSON.parse(clinic(['api-key', 'create', '--name', 'bench', '--json'])) as { key: string }).key;
  const added = JSON.parse(clinic(['staff', 'add', '--name', 'Eva Huber', '--role', 'admin', '--json'])) as { setup_code: string };
  clinic(['staff', 'set-pin', '--as', 'Eva Huber', '--pin-stdin'], `${added.setup_code}\n270419\n270419\n`);
  clinic(['tls', 'init']);
  const port = await freePort();
  const server = await startPinnedServer([executable, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir], {
    port,
    readyPath: '/api/public/v1/health',
    logFile: join(workDir, 'session-cost-serve.log'),
    env: { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME! },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const paired = JSON.parse(clinic(['desk', 'pair', '--name', 'Bench PC', '--url', `https://127.0.0.1:${port}`, '--json'])) as {
      code: string;
    };
    // Plain HTTP from this PC's own address, beside TLS on the same port: the costs compared are the credentials'.
    const joined = JSON.parse(
      (await sendApiRequest(agent, port, 'POST', '/desk/join', {}, { code: paired.code, host_name: 'bench' })).body,
    ) as {
      device_token: string;
    };
    const login = await sendApiRequest(
      agent,
      port,
      'POST',
      '/sessions',
      { 'clinic-device': joined.device_token },
      { person: 'Eva Huber', pin: '270419' },
    );
    const session = (JSON.parse(login.body) as { token: string }).token;
    const credentials = {
      key: { authorization: `Bearer ${key}` },
      session: { authorization: `Bearer ${session}`, 'clinic-device': joined.device_token },
    } as const;
    const patients = (
      JSON.parse((await sendApiRequest(agent, port, 'GET', '/patients?limit=100', credentials.key)).body) as { id: string }[]
    ).map((p) => p.id);
    let made = 0;
    const requests = {
      'GET /patients/{id} (audited read)': (headers: Record<string, string>, i: number) =>
        sendApiRequest(agent, port, 'GET', `/patients/${patients[i % patients.length]}`, headers),
      'POST /patients (write)': (headers: Record<string, string>) =>
        sendApiRequest(agent, port, 'POST', '/patients', headers, {
          first_name: `Bench${++made}`,
          last_name: 'Session',
          email: `b${made}@example.org`,
          mobile: `+43 660 ${made}`,
        }),
    };
    const result: SessionCostResult = { figures: [] };
    for (const [name, sendOne] of Object.entries(requests)) {
      const figures = {
        key: { latencyMs: [] as number[], cpu: 0 },
        session: { latencyMs: [] as number[], cpu: 0 },
      };
      for (let block = 0; block < blocks * 2; block++) {
        const credential = block % 2 === 0 ? 'key' : 'session';
        const cpuBefore = server.cpuSeconds();
        for (let i = 0; i < BLOCK; i++) {
          const started = process.hrtime.bigint();
          const answer = await sendOne(credentials[credential], block * BLOCK + i);
          figures[credential].latencyMs.push(Number(process.hrtime.bigint() - started) / 1e6);
          if (answer.status >= 300) throw new Error(`${name} with a ${credential}: ${answer.status} ${answer.body}`);
        }
        figures[credential].cpu += server.cpuSeconds() - cpuBefore;
      }
      for (const credential of ['key', 'session'] as const)
        result.figures.push({
          request: name,
          credential,
          latencyMs: figures[credential].latencyMs,
          cpuMsPerRequest: (figures[credential].cpu * 1000) / figures[credential].latencyMs.length,
        });
    }
    return result;
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/**
 * Issue 45: the desk on another PC. `patient find`, `patient show` and `appointment list` as whole
 * processes of dist/clinic on a desk PC (another OS user's configuration folder, joined over HTTPS
 * on 127.0.0.1 to a running `dist/clinic serve`) against the same commands on the server PC,
 * alternating, as the same logged-in person; and the server's CPU per desk command, read from
 * /proc for its process over the desk PC's runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { seedDeskPatients, timeRun } from './desk-latency.js';
import { freePort, readCpuSeconds, SERVER_CORE } from './server-process.js';

export interface DeskPcResult {
  commands: { command: string; serverPcMs: number[]; deskPcMs: number[] }[];
  /** The server's CPU time (user + system) per desk command, over all the desk PC's runs. */
  serverCpuMsPerCommand: number;
}

const CLIENT_CORE = SERVER_CORE === 0 ? 1 : 0;

/** Runs `executable args` to its end; its stdout, or an error with its stderr. */
function run(executable: string, args: string[], env: NodeJS.ProcessEnv, input?: string): string {
  const done = spawnSync(executable, args, { env, ...(input === undefined ? {} : { input }) });
  if (done.status !== 0) throw new Error(`${args.join(' ')} exited ${done.status}: ${done.stderr.toString()}`);
  return done.stdout.toString();
}

export async function measureDeskPc(executable: string, workDir: string, samples: number): Promise<DeskPcResult> {
  const dataDir = seedDeskPatients(join(workDir, 'desk-pc'));
  const serverPc = {
    ...process.env,
    XDG_CONFIG_HOME: mkdtempSync(join(workDir, 'server-pc-')),
    XDG_CACHE_HOME: join(workDir, 'desk-cache'),
  };
  const deskPc: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: mkdtempSync(join(workDir, 'desk-pc-')),
    XDG_CACHE_HOME: join(workDir, 'desk-cache'),
  };
  delete deskPc.CLINIC_DATA;
  const atServer = (args: string[], input?: string) => run(executable, [...args, '--data', dataDir], serverPc, input);
  const added = JSON.parse(atServer(['staff', 'add', '--name', 'Eva Huber', '--role', 'admin', '--json'])) as { setup_code: string };
  atServer(['staff', 'set-pin', '--as', 'Eva Huber', '--pin-stdin'], `${added.setup_code}\n270419\n270419\n`);
  atServer(['doctor', 'add', '--name', 'Dr. Bench', '--color', '#3366ff']);
  const today = new Date().toISOString().slice(0, 10);
  atServer([
    'book-appointment',
    '--patient-id',
    'P-1',
    '--doctor',
    'Dr. Bench',
    '--start-at',
    `${today}T09:00`,
    '--end-at',
    `${today}T09:30`,
  ]);
  atServer(['tls', 'init']);
  const port = await freePort();
  // The server on its own core, the desk commands on the other, as two PCs would run them.
  const server = spawn(
    'taskset',
    ['-c', String(CLIENT_CORE), executable, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir],
    {
      env: serverPc,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('"listening"')) resolve();
      });
      server.once('exit', () => reject(new Error('clinic serve exited before listening')));
    });
    const paired = JSON.parse(atServer(['desk', 'pair', '--name', 'Bench PC', '--url', `https://127.0.0.1:${port}`, '--json'])) as {
      code: string;
      url: string;
      ca_sha256: string;
    };
    run(executable, ['desk', 'join', paired.url, paired.code, '--ca-sha256', paired.ca_sha256], deskPc);
    run(executable, ['login', '--as', 'Eva Huber', '--pin-stdin'], deskPc, '270419\n');
    const commands = [
      ['patient', 'find', 'Muster'],
      ['patient', 'show', 'P-1'],
      ['appointment', 'list'],
    ];
    const result: DeskPcResult = { commands: [], serverCpuMsPerCommand: 0 };
    let serverCpu = 0;
    let deskCommands = 0;
    for (const command of commands) {
      const figures = { command: command.join(' '), serverPcMs: [] as number[], deskPcMs: [] as number[] };
      for (let i = 0; i < 2; i++) {
        timeRun([executable, ...command, '--data', dataDir], serverPc);
        timeRun([executable, ...command], deskPc);
      }
      for (let i = 0; i < samples; i++) {
        figures.serverPcMs.push(timeRun([executable, ...command, '--data', dataDir], serverPc));
        const before = readCpuSeconds(server.pid!);
        figures.deskPcMs.push(timeRun([executable, ...command], deskPc));
        serverCpu += readCpuSeconds(server.pid!) - before;
        deskCommands++;
      }
      result.commands.push(figures);
    }
    result.serverCpuMsPerCommand = (serverCpu * 1000) / deskCommands;
    return result;
  } finally {
    server.kill('SIGTERM');
    rmSync(serverPc.XDG_CONFIG_HOME, { recursive: true, force: true });
    rmSync(deskPc.XDG_CONFIG_HOME!, { recursive: true, force: true });
  }
}

/**
 * How long a desk command takes as a whole process, against a bare start of the same runtime
 * (issue 28: `dist/clinic patient find` within 2× Node 24's `node -e 0`). The two are started in
 * turn, A B A B …, so that a drift in the machine's speed reaches both; the ratio is taken pair by
 * pair and its median reported.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open-database.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { SERVER_CORE } from './server-process.js';

/** The desk command timed, and its yardstick, each a whole process. */
export interface DeskLatencyResult {
  command: string;
  deskMs: number[];
  bareMs: number[];
  ratios: number[];
}

/** Wall milliseconds of one run of `argv` on the server's core, given `input`, its output thrown away; throws when it fails. */
export function timeRun(argv: readonly string[], env: NodeJS.ProcessEnv, input = ''): number {
  const started = process.hrtime.bigint();
  const run = spawnSync('taskset', ['-c', String(SERVER_CORE), ...argv], { input, stdio: ['pipe', 'ignore', 'pipe'], env });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`${argv.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return ms;
}

/** `samples` alternating runs of `executable patient find Muster` over 200 patients and of `runtime -e 0`, after two of each unmeasured. */
export function measureDeskLatency(executable: string, runtime: string, workDir: string, samples: number): DeskLatencyResult {
  const dataDir = seedDeskPatients(join(workDir, 'desk'));
  const desk = [executable, 'patient', 'find', 'Muster', '--data', dataDir];
  const bare = [runtime, '-e', '0'];
  const env = { ...process.env, XDG_CACHE_HOME: join(workDir, 'desk-cache') };
  for (let i = 0; i < 2; i++) {
    timeRun(desk, env);
    timeRun(bare, env);
  }
  const result: DeskLatencyResult = { command: 'dist/clinic patient find Muster', deskMs: [], bareMs: [], ratios: [] };
  for (let i = 0; i < samples; i++) {
    const deskMs = timeRun(desk, env);
    const bareMs = timeRun(bare, env);
    result.deskMs.push(deskMs);
    result.bareMs.push(bareMs);
    result.ratios.push(deskMs / bareMs);
  }
  return result;
}

/** A data directory of 200 patients, 20 of them named Muster (what the desk benchmarks find); returns it. */
export function seedDeskPatients(dataDir: string): string {
  const db = openDatabase(dataDir);
  for (let i = 0; i < 200; i++) {
    createPatient(db, {
      first_name: `Anna${i}`,
      last_name: i % 10 === 0 ? 'Muster' : `Huber${i}`,
      email: `p${i}@example.org`,
      mobile: `+43 664 ${i}`,
    });
  }
  db.close();
  return dataDir;
}

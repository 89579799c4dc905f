/**
 * How long `dist/clinic serve` takes from being started to its first answered request, as a
 * clinic PC restarting the service sees it: the time from spawn until GET /document-types answers.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open-database.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { API } from './scenarios.js';
import { freePort, SERVER_CORE, waitUntilAnswering } from './server-process.js';

/** Start-up times in milliseconds: the first with an empty addon cache, then the usual ones. */
export interface StartupResult {
  coldCacheMs: number;
  samplesMs: number[];
}

/** One start of `command serve` over `dataDir`, timed to its first answer, then stopped. */
async function timeOneStart(command: readonly string[], dataDir: string, env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn('taskset', ['-c', String(SERVER_CORE), ...command, 'serve', '--data', dataDir, '--port', String(port)], {
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilAnswering(port, `${API}/document-types`, child, { intervalMs: 1, timeoutMs: 10_000 });
    return Number(process.hrtime.bigint() - started) / 1e6;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * Times `samples` starts of the executable over a small data directory that already has a key
 * (so nothing is printed on first run), after one start with an empty addon cache.
 */
export async function measureStartup(executable: string, workDir: string, samples: number): Promise<StartupResult> {
  const dataDir = join(workDir, 'startup');
  const db = openDatabase(dataDir);
  createApiKey(db, { name: 'bench' });
  db.close();
  const cache = mkdtempSync(join(workDir, 'addon-cache-'));
  try {
    const env = { XDG_CACHE_HOME: cache };
    const coldCacheMs = await timeOneStart([executable], dataDir, env);
    const samplesMs: number[] = [];
    for (let i = 0; i < samples; i++) samplesMs.push(await timeOneStart([executable], dataDir, env));
    return { coldCacheMs, samplesMs };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

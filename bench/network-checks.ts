/**
 * Issue 31: what the network checks (the Host and Origin checks, the preflight, the failed-key
 * throttle) cost GET /doctors, measured in one run against the same app without them.
 *
 *   npm run bench:network            (about 2.5 minutes; `-- --seconds 5 --rounds 1` for a quick look)
 *
 * Each variant is the program's own app (createApp) in a server process pinned to core 0, served
 * by node:http, its request log going to a file; the load comes from core 1 with autocannon, 10
 * connections, GET /doctors with a key. `without` is the same app with the checks' middleware
 * taken out of its chain (nothing else differs); `with` is the app as `clinic serve` runs it,
 * asked as an integration asks (no Origin); `with, Origin` as the docs page asks (its own
 * Origin, compared as an origin). The variants alternate round by round (A B C A B C …), so a
 * slower minute of the machine falls on all of them. Then, in this process, the checks alone:
 * their time per request on the values a request carries.
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open-database.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { addDoctor } from '../src/domain/catalog.js';
import { jsonLineLogger } from '../src/logger.js';
import { createApp } from '../src/server/app.js';
import { CommitGroups } from '../src/server/commit-groups.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES, DEFAULT_JSON_BODY_LIMIT_BYTES } from '../src/server/config.js';
import { networkPolicy } from '../src/server/network-policy.js';
import { runLoad, type LoadResult } from './load.js';
import { freePort, startPinnedServer, type ServerProcess } from './server-process.js';

/** The middleware of the checks, by the names their factories give them. */
const CHECKS = new Set(['guardHostAndOriginMiddleware', 'answerPreflightMiddleware', 'throttleFailedKeysMiddleware']);

const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};

/** The server child: `--serve with|without --data DIR --port N`. */
function serve(): void {
  const variant = process.argv[process.argv.indexOf('--serve') + 1];
  const dataDir = process.argv[process.argv.indexOf('--data') + 1]!;
  const port = option('port', 0);
  const db = openDatabase(dataDir, { busyWait: 'fail' });
  const app = createApp(db, new CommitGroups(db), {
    dataDir,
    jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
    documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
    logger: jsonLineLogger(),
    listenHost: '127.0.0.1',
  });
  const present = app.middleware.filter((middleware) => CHECKS.has(middleware.name)).map((middleware) => middleware.name);
  if (present.length < 2) throw new Error(`the app's chain no longer has the checks by these names: ${[...CHECKS].join(', ')}`);
  if (variant === 'without') app.middleware = app.middleware.filter((middleware) => !CHECKS.has(middleware.name));
  const handle = app.callback();
  // Koa settles every request itself; node:http wants no promise back.
  createServer((request, response) => void handle(request, response)).listen(port, '127.0.0.1');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const range = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

/** The checks alone, in this process: microseconds per request for the values a request carries. */
function timeChecksInProcess(): { host: number; hostAndOrigin: number } {
  const policy = networkPolicy('127.0.0.1', ['reception-pc'], ['https://portal.example']);
  const time = (work: () => void) => {
    for (let i = 0; i < 100_000; i++) work();
    const rounds = 1_000_000;
    const started = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) work();
    return Number(process.hrtime.bigint() - started) / 1e3 / rounds;
  };
  return {
    host: time(() => policy.allowsHost('127.0.0.1:8080')),
    hostAndOrigin: time(() => {
      policy.allowsHost('127.0.0.1:8080');
      policy.originOf('http://127.0.0.1:8080', 'http', '127.0.0.1:8080');
    }),
  };
}

async function main(): Promise<void> {
  const seconds = option('seconds', 10);
  const rounds = option('rounds', 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-bench-network-'));
  const db = openDatabase(dataDir);
  for (let i = 1; i <= 10; i++) addDoctor(db, { name: `Dr. Bench ${i}`, color: '#3366cc' });
  const key = createApiKey(db, { name: 'bench' }).key;
  db.close();
  const variants = [
    { name: 'without the checks', serve: 'without', headers: {} },
    { name: 'with the checks', serve: 'with', headers: {} },
    { name: 'with, Origin (docs page)', serve: 'with', headers: { origin: 'ORIGIN' } },
  ] as const;
  const results = new Map<string, LoadResult[]>(variants.map((variant) => [variant.name, []]));
  console.log(`GET /doctors (10 doctors), 10 connections, ${rounds} rounds of ${seconds} s after 2 s of warm-up, variants alternating`);
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        const port = await freePort();
        const server: ServerProcess = await startPinnedServer(
          [
            process.execPath,
            '--import',
            'tsx',
            'bench/network-checks.ts',
            '--serve',
            variant.serve,
            '--data',
            dataDir,
            '--port',
            String(port),
          ],
          { port, readyPath: '/api/public/v1/health', logFile: join(dataDir, `server-${variant.serve}.log`) },
        );
        try {
          const origin = `http://127.0.0.1:${port}`;
          const headers = {
            authorization: `Bearer ${key}`,
            ...('origin' in variant.headers ? { origin } : {}),
          };
          const load = { method: 'GET' as const, path: '/api/public/v1/doctors', headers };
          await runLoad(origin, load, { connections: 10, seconds: 2 });
          const result = await runLoad(origin, load, { connections: 10, seconds });
          if (result.successes !== result.answers || result.errors > 0)
            throw new Error(`${variant.name}: not every answer was 2xx: ${JSON.stringify(result.failures)}, ${result.errors} errors`);
          results.get(variant.name)!.push(result);
          console.log(
            `  round ${round}, ${variant.name}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const floor = results.get(variants[0].name)!;
  console.log('\n| variant | req/s (median, min–max) | ÷ without, round by round | p50 ms | p99 ms | p99 ÷ without |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const variant of variants) {
    const runs = results.get(variant.name)!;
    const shares = runs.map((run, i) => run.requestsPerSec / floor[i]!.requestsPerSec);
    const p99Shares = runs.map((run, i) => run.p99 / floor[i]!.p99);
    console.log(
      `| ${variant.name} | ${median(runs.map((run) => run.requestsPerSec)).toFixed(0)} (${range(
        runs.map((run) => run.requestsPerSec),
        0,
      )}) | ${median(shares).toFixed(3)} (${range(shares, 3)}) | ${median(runs.map((run) => run.p50)).toFixed(2)} | ${median(
        runs.map((run) => run.p99),
      ).toFixed(2)} | ${median(p99Shares).toFixed(2)} |`,
    );
  }
  const alone = timeChecksInProcess();
  console.log(
    `\nIn process: the Host check ${alone.host.toFixed(3)} µs per request; Host and Origin ${alone.hostAndOrigin.toFixed(3)} µs` +
      ` (an answer of GET /doctors costs the server about ${(1e6 / median(floor.map((run) => run.requestsPerSec))).toFixed(0)} µs of its core).`,
  );
}

if (process.argv.includes('--serve')) serve();
else await main();

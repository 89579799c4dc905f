/**
 * Issue 31: what the network checks (the Host and Origin checks, the preflight, the failed-key
 * throttle) cost GET /doctors, measured in one run against the same app without them.
 *
 *   npm run bench:network            (about 6 minutes with --rounds 6; `-- --seconds 5 --rounds 1` for a quick look)
 *
 * Each variant is the program's own app (createApp) in a server process pinned to core 0, served
 * by node:http, its request log going to a file; the load comes from core 1 with autocannon, 10
 * connections, GET /doctors with a key. `without` is the same app with the checks' middleware
 * taken out of its chain (nothing else differs); `with` is the app as `clinic serve` runs it.
 * Both are asked as an integration asks (no Origin) and as the docs page asks (its own Origin),
 * and each `with` is compared with the `without` of the same requests. The variants alternate
 * (A B C D, then B C D A, …), so a slower minute of the machine falls on all of them and none
 * always runs first. Besides req/s and p99, the server's own CPU time per answer
 * (/proc/<pid>/stat), which the load generator's pace does not blur. Then, in this process, the
 * checks alone: their time per request on the values a request carries.
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import compose from 'koa-compose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open-database.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { addDoctor } from '../src/domain/catalog.js';
import { jsonLineLogger, silentLogger } from '../src/logger.js';
import { createApp } from '../src/server/api/app.js';
import { CommitGroups } from '../src/server/writes/commit-groups.js';
import { DEFAULT_JSON_BODY_LIMIT_BYTES } from '../src/server/config.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../src/domain/documents/document-limit.js';
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
  // An exit, not a kill, on SIGTERM: a server run with --cpu-prof then writes its profile.
  process.once('SIGTERM', () => process.exit(0));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const range = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

/**
 * The checks' middleware alone, in this process, on the app `clinic serve` runs: microseconds
 * per request, as a request of an integration (no Origin) and of the docs page (its own Origin)
 * passes them from 127.0.0.1, against the same chain without them. Koa's own dispatch of each
 * middleware is counted; nothing of the network, the key or the route is.
 */
async function timeChecksInProcess(dataDir: string): Promise<{ integration: number; docsPage: number }> {
  const db = openDatabase(dataDir);
  const app = createApp(db, new CommitGroups(db), {
    dataDir,
    jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
    documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
    logger: silentLogger,
    listenHost: '127.0.0.1',
  });
  const checks = app.middleware.filter((middleware) => CHECKS.has(middleware.name));
  const end = async () => {};
  const withChecks = compose([...checks, end]);
  const withoutChecks = compose([end]);
  const contextFor = (headers: Record<string, string>) => {
    const socket = new Socket();
    Object.defineProperty(socket, 'remoteAddress', { value: '127.0.0.1' });
    const request = new IncomingMessage(socket);
    Object.assign(request, { method: 'GET', url: '/api/public/v1/doctors', headers });
    return app.createContext(request, new ServerResponse(request));
  };
  const perRequest = async (chain: (ctx: never) => Promise<unknown>, headers: Record<string, string>) => {
    const ctx = contextFor(headers) as never;
    for (let i = 0; i < 50_000; i++) await chain(ctx);
    const rounds = 500_000;
    const started = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) await chain(ctx);
    return Number(process.hrtime.bigint() - started) / 1e3 / rounds;
  };
  const cost = async (headers: Record<string, string>) => {
    const costs: number[] = [];
    for (let round = 0; round < 5; round++)
      costs.push((await perRequest(withChecks, headers)) - (await perRequest(withoutChecks, headers)));
    return median(costs);
  };
  const host = { host: '127.0.0.1:8080', authorization: 'Bearer clinic_x' };
  try {
    return { integration: await cost(host), docsPage: await cost({ ...host, origin: 'http://127.0.0.1:8080' }) };
  } finally {
    db.close();
  }
}

/** One variant's figures over the rounds, as a table row: medians, with min–max and the shares of `floor` taken round by round. */
function tableRow(name: string, runs: LoadResult[], floor: LoadResult[]): string {
  const figures = (values: number[], digits: number) => `${median(values).toFixed(digits)} (${range(values, digits)})`;
  const cpu = (run: LoadResult) => run.serverCpu!.microsPerAnswer;
  return [
    name,
    figures(
      runs.map((run) => run.requestsPerSec),
      0,
    ),
    figures(
      runs.map((run, i) => run.requestsPerSec / floor[i]!.requestsPerSec),
      3,
    ),
    median(runs.map((run) => run.p99)).toFixed(2),
    figures(
      runs.map((run, i) => run.p99 / floor[i]!.p99),
      2,
    ),
    figures(runs.map(cpu), 1),
    figures(
      runs.map((run, i) => cpu(run) - cpu(floor[i]!)),
      1,
    ),
  ].join(' | ');
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
    { name: 'without the checks', serve: 'without', withOrigin: false },
    { name: 'with the checks', serve: 'with', withOrigin: false },
    { name: 'without, Origin', serve: 'without', withOrigin: true },
    { name: 'with, Origin (docs page)', serve: 'with', withOrigin: true },
  ] as const;
  const results = new Map<string, LoadResult[]>(variants.map((variant) => [variant.name, []]));
  console.log(`GET /doctors (10 doctors), 10 connections, ${rounds} rounds of ${seconds} s after 2 s of warm-up, variants alternating`);
  try {
    for (let round = 1; round <= rounds; round++) {
      // Each round starts with another variant, so that none always runs first or last.
      const order = variants.map((_, i) => variants[(i + round - 1) % variants.length]!);
      for (const variant of order) {
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
          const headers = { authorization: `Bearer ${key}`, ...(variant.withOrigin ? { origin } : {}) };
          const load = { method: 'GET' as const, path: '/api/public/v1/doctors', headers };
          await runLoad(origin, load, { connections: 10, seconds: 2 });
          const cpuBefore = server.cpuSeconds();
          const result = await runLoad(origin, load, { connections: 10, seconds });
          // The server's own CPU time per answer: what the checks add, whatever else the machine does.
          result.serverCpu = { microsPerAnswer: ((server.cpuSeconds() - cpuBefore) * 1e6) / result.answers, busy: 0 };
          if (result.successes !== result.answers || result.errors > 0)
            throw new Error(`${variant.name}: not every answer was 2xx: ${JSON.stringify(result.failures)}, ${result.errors} errors`);
          results.get(variant.name)!.push(result);
          console.log(
            `  round ${round}, ${variant.name}: ${result.requestsPerSec.toFixed(0)} req/s, p99 ${result.p99.toFixed(2)} ms, ` +
              `server CPU ${result.serverCpu.microsPerAnswer.toFixed(1)} µs per answer`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(
    '\n| variant | req/s | ÷ without, round by round | p99 ms | p99 ÷ without | server CPU µs per answer | − without, round by round |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  // Each is compared with the same requests without the checks.
  for (const [index, variant] of variants.entries()) {
    const like = results.get(variants[index < 2 ? 0 : 2].name)!;
    console.log(`| ${tableRow(variant.name, results.get(variant.name)!, like)} |`);
  }
  const alone = await timeChecksInProcess(dataDir);
  console.log(
    `\nMedians (min–max) over the rounds. The checks' middleware alone, in process: ${alone.integration.toFixed(2)} µs per request ` +
      `without Origin, ${alone.docsPage.toFixed(2)} µs with the docs page's own Origin.`,
  );
  rmSync(dataDir, { recursive: true, force: true });
}

if (process.argv.includes('--serve')) serve();
else await main();

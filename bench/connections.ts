/**
 * Issue 39, H1 and L2: what hostile clients cost a well-behaved one, before (the limits of
 * e65ae81: one cap of 256 for all, TLS handshakes of 120 s, no clinic-wide budget of failed keys)
 * and after (the program's limits, src/server/config.ts).
 *
 *   npm run bench:connections            (about 5 minutes; `-- --seconds 5 --guess-seconds 10` for a quick look)
 *
 * The server is the program's own (startHttpServer) in a process pinned to core 0. From core 1:
 * - connections: 1,000 hostile sockets from 127.0.0.2, each opened again as soon as the server
 *   closes it (a process of their own); over HTTP a third keep-alive (a public GET every 4 s), a
 *   third headers never finished (a byte every 2 s), a third silent; over HTTPS all silent (a
 *   handshake never started). Beside them, from 127.0.0.1 and from 127.0.0.3, a keep-alive client
 *   (GET /document-types, the next 100 ms after each answer, on one connection it keeps while the
 *   server does) and a client that opens a new connection for each request (every 250 ms). Each
 *   request gets 5 s; a refused connection, an error or no answer in time is a failure. Success
 *   rate and p50/p99 of the answered, per client; the server's resident memory at the end.
 * - guessing: wrong keys on GET /patients from rotating addresses (127.1.0.0/16, 30 from each
 *   until it is blocked, the next address then), as fast as one client goes: 401s per minute.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/open-database.js';
import { jsonLineLogger } from '../src/logger.js';
import { CommitGroups } from '../src/server/writes/commit-groups.js';
import { DEFAULT_JSON_BODY_LIMIT_BYTES, type ServerConfig } from '../src/server/config.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../src/domain/documents/document-limit.js';
import type { ConnectionLimits } from '../src/server/connections/connection-limits.js';
import { startHttpServer } from '../src/server/connections/http-server.js';
import { createCertificateAuthority, issueServerCertificate } from '../src/domain/tls/certificates.js';
import { LOOPBACK_NAMES } from '../src/domain/tls/tls-names.js';
import { quantile } from './load.js';
import { freePort, readCpuSeconds, readMemory, SERVER_CORE } from './server-process.js';

const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const text = (name: string) => process.argv[process.argv.indexOf(`--${name}`) + 1]!;

/** e65ae81's connections: node's maxConnections of 256 for everyone, node's 120 s for a TLS handshake, nothing else. */
const BEFORE: ConnectionLimits = {
  maxConnections: 256,
  perAddress: 256,
  ownReserve: 0,
  firstRequestMs: 10_000,
  keepAliveMs: 5_000,
  tlsHandshakeMs: 120_000,
  pressureFrom: 1,
  closeWaitingAtCap: false,
  logIntervalMs: 60_000,
};

const DOCUMENT_TYPES = '/api/public/v1/document-types';

/** The server child: `--serve before|after --data DIR --port N [--tls DIR]`. */
async function serve(): Promise<void> {
  const before = text('serve') === 'before';
  const dataDir = text('data');
  const db = openDatabase(dataDir, { busyWait: 'fail' });
  const config: ServerConfig = {
    dataDir,
    jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
    documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
    logger: jsonLineLogger(),
    ...(before ? { connectionLimits: BEFORE, clinicFailedKeysAllowed: Infinity } : {}),
  };
  const tls = process.argv.includes('--tls')
    ? { certificatePem: readFileSync(join(text('tls'), 'server.pem')), keyPem: readFileSync(join(text('tls'), 'server-key.pem')) }
    : undefined;
  await startHttpServer(db, new CommitGroups(db), config, '127.0.0.1', option('port', 0), tls);
  process.once('SIGTERM', () => process.exit(0));
}

/**
 * The hostile child: `--hostile http|https --port N --count C --seconds S --reconnect-ms R`. Opens
 * its sockets 100 at a time (all at once would only overflow the kernel's queue of connections
 * waiting to be accepted), prints `ready` once each has connected, and at the end how many
 * connections it opened in all.
 */
async function hostile(): Promise<void> {
  const overTls = text('hostile') === 'https';
  const port = option('port', 0);
  const count = option('count', 1000);
  const reconnectMs = option('reconnect-ms', 0);
  const until = Date.now() + option('seconds', 30) * 1000;
  let opened = 0;
  const connected = new Set<number>();
  const open = (index: number) => {
    if (Date.now() > until) return;
    opened += 1;
    const socket: Socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
    const kind = overTls ? 'silent' : (['keep-alive', 'slow-headers', 'silent'] as const)[index % 3]!;
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.on('connect', () => {
      if (connected.size < count && connected.add(index).size === count) process.stdout.write('ready\n');
      if (kind === 'keep-alive') {
        const ask = () => socket.writable && socket.write(`GET ${DOCUMENT_TYPES} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        ask();
        timer = setInterval(ask, 4000);
      } else if (kind === 'slow-headers') {
        socket.write(`GET ${DOCUMENT_TYPES} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `);
        timer = setInterval(() => socket.writable && socket.write('a'), 2000);
      }
    });
    // Closed by the server (refused, timed out, closed as waiting): opened again.
    socket.on('close', () => {
      clearInterval(timer);
      setTimeout(() => open(index), reconnectMs);
    });
    setTimeout(() => socket.destroy(), Math.max(0, until - Date.now())).unref();
  };
  for (let i = 0; i < count; i += 1) {
    open(i);
    if (i % 100 === 99) await sleep(20);
  }
  const end = () => {
    process.stdout.write(`${JSON.stringify({ opened })}\n`);
    process.exit(0);
  };
  // The bench ends it once it has measured; `--seconds` is only the longest it runs.
  process.once('SIGTERM', end);
  await sleep(Math.max(0, until - Date.now()) + 200);
  end();
}

/** What one well-behaved client saw. */
interface ClientFigures {
  attempts: number;
  answered: number;
  latencies: number[];
  failures: Record<string, number>;
}

/** GET `path` on `agent` (or a new connection), from `localAddress`; the status, or why none came within 5 s. */
function getOnce(origin: string, localAddress: string, agent: HttpAgent | false, ca: string | undefined): Promise<number | string> {
  const url = new URL(DOCUMENT_TYPES, origin);
  return new Promise((resolve) => {
    const options = { host: url.hostname, port: url.port, path: url.pathname, localAddress, agent, ...(ca === undefined ? {} : { ca }) };
    const done = (response: IncomingMessage) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    };
    const request = ca === undefined ? httpRequest(options, done) : httpsRequest(options as never, done);
    request.setTimeout(5000, () => request.destroy(Object.assign(new Error('no answer within 5 s'), { code: 'TIMEOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    request.end();
  });
}

/** A well-behaved client from `localAddress` until `until`: on one kept connection, or a new one per request. */
async function wellBehaved(origin: string, localAddress: string, keepAlive: boolean, until: number, ca?: string): Promise<ClientFigures> {
  const figures: ClientFigures = { attempts: 0, answered: 0, latencies: [], failures: {} };
  const agentOptions = { keepAlive: true, maxSockets: 1 };
  const agent = keepAlive ? (ca === undefined ? new HttpAgent(agentOptions) : new HttpsAgent(agentOptions)) : false;
  while (Date.now() < until) {
    const started = performance.now();
    const status = await getOnce(origin, localAddress, agent, ca);
    figures.attempts += 1;
    if (status === 200) {
      figures.answered += 1;
      figures.latencies.push(performance.now() - started);
    } else figures.failures[String(status)] = (figures.failures[String(status)] ?? 0) + 1;
    await sleep(keepAlive ? 100 : 250);
  }
  if (agent) agent.destroy();
  return figures;
}

/** One row of the table. */
function row(variant: string, protocol: string, client: string, figures: ClientFigures): string {
  const sorted = Float64Array.from(figures.latencies).sort();
  const rate = figures.attempts === 0 ? 0 : (100 * figures.answered) / figures.attempts;
  const failures = Object.entries(figures.failures)
    .map(([why, count]) => `${why} ×${count}`)
    .join(', ');
  return `| ${variant} | ${protocol} | ${client} | ${figures.attempts} | ${rate.toFixed(1)} % | ${
    figures.answered === 0 ? '–' : quantile(sorted, 0.5).toFixed(1)
  } | ${figures.answered === 0 ? '–' : quantile(sorted, 0.99).toFixed(1)} | ${failures || '–'} |`;
}

/** Starts `bench/connections.ts <args>` pinned to core 1, beside this process, for the hostile sockets. */
function startHostile(args: string[]): { ready: Promise<void>; stop(): Promise<{ opened: number }> } {
  const child = spawn('taskset', ['-c', '1', process.execPath, '--import', 'tsx', 'bench/connections.ts', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('ready\n')) markReady();
  });
  const result = new Promise<{ opened: number }>((resolve) =>
    child.once('exit', () => {
      markReady();
      resolve(JSON.parse(output.split('\n').find((line) => line.startsWith('{')) ?? '{"opened":0}') as { opened: number });
    }),
  );
  return {
    ready,
    stop: () => {
      child.kill('SIGTERM');
      return result;
    },
  };
}

/** Connections the kernel dropped because the server's queue of connections to accept was full, so far (/proc/net/netstat). */
function listenDrops(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('TcpExt:'));
  const names = lines[0]?.split(' ') ?? [];
  const values = lines[1]?.split(' ') ?? [];
  return Number(values[names.indexOf('ListenDrops')] ?? NaN);
}

/** A server child of one variant, listening. */
interface VariantServer {
  port: number;
  /** Its resident memory now, MB. */
  rssMb(): number;
  /** The CPU seconds it has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** Whether something accepts a TCP connection on `port` (HTTPS too, which a plain GET would not tell). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The server of one variant, over HTTP or HTTPS, pinned to SERVER_CORE, its log in the data directory. */
async function startVariant(variant: string, dataDir: string, tlsDir: string | undefined): Promise<VariantServer> {
  const port = await freePort();
  const args = ['bench/connections.ts', '--serve', variant, '--data', dataDir, '--port', String(port)];
  const log = openSync(join(dataDir, `server-${variant}-${tlsDir === undefined ? 'http' : 'https'}.log`), 'a');
  const child = spawn(
    'taskset',
    ['-c', String(SERVER_CORE), process.execPath, '--import', 'tsx', ...args, ...(tlsDir === undefined ? [] : ['--tls', tlsDir])],
    { stdio: ['ignore', log, log] },
  );
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the ${variant} server did not start; see its log in ${dataDir}`);
    await sleep(50);
  }
  return {
    port,
    rssMb: () => readMemory(child.pid!).rssMb,
    cpuSeconds: () => readCpuSeconds(child.pid!),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Wrong keys from rotating addresses for `seconds`: how many were answered 401 (guesses the server checked). */
async function guess(origin: string, seconds: number): Promise<{ guesses: number; refused: number; addresses: number }> {
  const until = Date.now() + seconds * 1000;
  let guesses = 0;
  let refused = 0;
  let address = 0;
  const agent = false;
  while (Date.now() < until) {
    const localAddress = `127.1.${Math.floor(address / 254) % 256}.${(address % 254) + 1}`;
    const status = await new Promise<number>((resolve) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: new URL(origin).port,
          path: '/api/public/v1/patients',
          localAddress,
          agent,
          headers: { authorization: `Bearer clinic_guess${guesses}` },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', () => resolve(0));
      request.end();
    });
    if (status === 401) guesses += 1;
    else {
      refused += 1;
      address += 1;
    }
  }
  return { guesses, refused, addresses: address + 1 };
}

async function main(): Promise<void> {
  const seconds = option('seconds', 20);
  const warmUp = option('warm-up', 3);
  // How soon a hostile socket the server closed is opened again: at once (a flood), or a second later.
  const reconnects = process.argv.includes('--reconnect-ms') ? [option('reconnect-ms', 0)] : [0, 1000];
  const count = option('count', 1000);
  const guessSeconds = option('guess-seconds', 60);
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-bench-connections-'));
  openDatabase(dataDir).close();
  const now = new Date();
  const year = new Date(now.getTime() + 365 * 24 * 3600 * 1000);
  const authority = await createCertificateAuthority('bench CA', now, year);
  const certificate = await issueServerCertificate(authority, LOOPBACK_NAMES, now, year);
  writeFileSync(join(dataDir, 'server.pem'), certificate.certificatePem);
  writeFileSync(join(dataDir, 'server-key.pem'), certificate.keyPem);
  const rows: string[] = [];
  const memory: string[] = [];
  console.log(
    `${count} hostile sockets from 127.0.0.2; well-behaved clients from 127.0.0.1 and 127.0.0.3 for ${seconds} s after ${warmUp} s`,
  );
  try {
    // Each case: the limits, the protocol, and how soon a closed hostile socket is opened again
    // (null: no hostile sockets at all, the well-behaved clients' floor on this machine).
    const cases = (['http', 'https'] as const).flatMap((protocol) => [
      { variant: 'after', protocol, reconnectMs: null },
      ...reconnects.flatMap((reconnectMs) => ['before', 'after'].map((variant) => ({ variant, protocol, reconnectMs }))),
    ]);
    for (const { variant, protocol, reconnectMs } of cases) {
      const server = await startVariant(variant, dataDir, protocol === 'https' ? dataDir : undefined);
      const origin = `${protocol}://127.0.0.1:${server.port}`;
      const ca = protocol === 'https' ? authority.certificatePem : undefined;
      try {
        const flood =
          reconnectMs === null
            ? undefined
            : startHostile([
                ...['--hostile', protocol, '--port', String(server.port), '--count', String(count)],
                ...['--seconds', String(120 + seconds), '--reconnect-ms', String(reconnectMs)],
              ]);
        await flood?.ready;
        await sleep(warmUp * 1000);
        const drops = listenDrops();
        const cpu = server.cpuSeconds();
        const until = Date.now() + seconds * 1000;
        const clients = [
          ['127.0.0.1', true],
          ['127.0.0.3', true],
          ['127.0.0.1', false],
          ['127.0.0.3', false],
        ] as const;
        const figures = await Promise.all(clients.map(([address, keepAlive]) => wellBehaved(origin, address, keepAlive, until, ca)));
        const busy = (server.cpuSeconds() - cpu) / seconds;
        const rss = server.rssMb();
        const dropped = listenDrops() - drops;
        const opened = flood === undefined ? 0 : (await flood.stop()).opened;
        const hostility = reconnectMs === null ? 'none' : reconnectMs === 0 ? 'reopened at once' : `reopened after ${reconnectMs / 1000} s`;
        const name = `${variant}, ${protocol.toUpperCase()}, hostile sockets ${hostility}`;
        figures.forEach((client, i) => {
          const [address, keepAlive] = clients[i]!;
          rows.push(
            row(
              reconnectMs === null ? '(no attack)' : variant,
              `${protocol.toUpperCase()}, ${hostility}`,
              `${address}, ${keepAlive ? 'keep-alive' : 'new connection each'}`,
              client,
            ),
          );
          console.log(`  ${rows.at(-1)}`);
        });
        memory.push(
          `${name}: server CPU ${(100 * busy).toFixed(0)} % of its core, RSS ${rss.toFixed(0)} MB; ` +
            `${opened} hostile connections opened in all; ${dropped} connections dropped by the kernel's accept queue while measured`,
        );
        console.log(`  ${memory.at(-1)}`);
      } finally {
        await server.stop();
      }
    }
    const guessing: string[] = [];
    for (const variant of ['before', 'after']) {
      const server = await startVariant(variant, dataDir, undefined);
      try {
        const { guesses, refused, addresses } = await guess(`http://127.0.0.1:${server.port}`, guessSeconds);
        guessing.push(`| ${variant} | ${guesses} | ${((guesses * 60) / guessSeconds).toFixed(0)} | ${refused} | ${addresses} |`);
        console.log(`  ${guessing.at(-1)}`);
      } finally {
        await server.stop();
      }
    }
    console.log('\n| limits | protocol, hostile sockets | well-behaved client | requests | answered | p50 ms | p99 ms | failures |');
    console.log('|---|---|---|---:|---:|---:|---:|---|');
    for (const line of rows) console.log(line);
    console.log(`\n${memory.join('\n')}`);
    console.log(`\nWrong keys from rotating addresses for ${guessSeconds} s, one client:\n`);
    console.log('| throttle | 401s (guesses checked) | per minute | 429s | addresses used |');
    console.log('|---|---:|---:|---:|---:|');
    for (const line of guessing) console.log(line);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve();
else if (process.argv.includes('--hostile')) await hostile();
else await main();

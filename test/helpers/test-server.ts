import { runDeskPcCommand } from '../../src/cli/desk-pc-commands.js';
import { rmSync } from 'node:fs';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { createApiKey, type Scope } from '../../src/domain/api-keys.js';
import { DEFAULT_JSON_BODY_LIMIT_BYTES, type ServerConfig } from '../../src/server/config.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../src/domain/documents/document-limit.js';
import { silentLogger } from '../../src/logger.js';
import { startHttpServer, type HttpsCredentials, type RunningHttpServer } from '../../src/server/connections/http-server.js';
import { createCertificateAuthority, issueServerCertificate } from '../../src/domain/tls/certificates.js';
import { LOOPBACK_NAMES } from '../../src/domain/tls/tls-names.js';
import { assertMatchesContract } from './contract.js';
import { makeDataDir } from './fixtures.js';
import { runClinic, serverRunsInThisProcess, startServeProcess, STOP_SIGNAL, testingExecutable } from './run-cli.js';
import { CommitGroups } from '../../src/server/writes/commit-groups.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (a string or bytes), bypassing JSON encoding. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** The key to send; `null` sends no Authorization header. Default: the server's full-scope key. */
  key?: string | null;
}

export interface TestServer {
  /** The test's own connection to the server's database (the server has another; in another process with CLINIC_BIN). */
  db: Db;
  dataDir: string;
  /** Base URL including /api/public/v1. */
  baseUrl: string;
  /** An API key with every scope. */
  key: string;
  /** Sends a request to `baseUrl + path`; throws if the response does not match the OpenAPI document. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Issues another key, e.g. with fewer scopes. */
  createKey(scopes?: Scope[]): string;
  /** Every event the server has logged so far (one `request` event per answer), oldest first. */
  logged(): readonly Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * Sends requests to `baseUrl` with `key` unless told otherwise, checks each answer against the
 * OpenAPI document (contract.ts) and parses JSON answers.
 */
function requester(baseUrl: string, key: string): TestServer['request'] {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const sendKey = options.key === undefined ? key : options.key;
    if (sendKey !== null && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
      headers.authorization = `Bearer ${sendKey}`;
    }
    let body: string | Uint8Array | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    assertMatchesContract(method, `${baseUrl}${path}`, { status: response.status, headers: response.headers, text });
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as any, text };
  };
}

/**
 * The real server in this process, on an ephemeral loopback port over a new data directory. Its
 * connection is opened as `clinic serve`'s: it waits for other processes' locks by timer and
 * groups commits.
 */
async function startInProcessServer(config: Partial<ServerConfig>, dataDir = makeDataDir()): Promise<TestServer> {
  const serverDb = openDatabase(dataDir, { busyWait: 'fail' });
  const commits = new CommitGroups(serverDb);
  // The test prepares and reads data on a connection of its own, as beside `clinic serve`: what
  // it writes is committed when the call returns, not with the server's next group.
  const db = openDatabase(dataDir);
  const logged: Record<string, unknown>[] = [];
  const logger = config.logger ?? silentLogger;
  const running = await startHttpServer(
    serverDb,
    commits,
    {
      dataDir,
      jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
      documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
      // As `clinic serve` runs them: the program's own command line.
      deskCommands: runDeskPcCommand,
      ...config,
      logger: {
        info: (event) => (logged.push(event), logger.info(event)),
        error: (event) => (logged.push(event), logger.error(event)),
      },
    },
    '127.0.0.1',
    0,
  );
  let inFlight = 0;
  running.server.on('request', (_request, response) => {
    inFlight += 1;
    response.once('close', () => (inFlight -= 1));
  });
  const stopped = serverRunsInThisProcess(() => inFlight > 0);
  const baseUrl = `http://127.0.0.1:${running.port}/api/public/v1`;
  const key = createApiKey(db, { name: 'test' }).key;
  return {
    db,
    dataDir,
    baseUrl,
    key,
    createKey: (scopes) => createApiKey(db, { name: 'scoped', ...(scopes ? { scopes } : {}) }).key,
    logged: () => logged,
    request: requester(baseUrl, key),
    async close() {
      // A client that still holds a connection (a hung browser, say) cannot hold the test file open.
      await running.close(5_000);
      db.close();
      commits.flush();
      serverDb.close();
      stopped();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `$CLINIC_BIN serve` as a child process over a new data directory. Its key is made by
 * `$CLINIC_BIN api-key create`; the test process opens the same database file for tests that
 * read or prepare data directly (WAL lets both processes use it).
 */
async function startExecutableServer(config: Partial<ServerConfig>, dataDir = makeDataDir()): Promise<TestServer> {
  const { documentLimitBytes, allowedHosts = [], allowedOrigins = [], ...rest } = config;
  if (Object.keys(rest).length > 0)
    throw new Error(
      `with CLINIC_BIN only documentLimitBytes, allowedHosts and allowedOrigins can be configured, not ${Object.keys(rest).join(', ')}`,
    );
  const init = await runClinic(['init', '--data', dataDir]);
  if (init.code !== 0) throw new Error(`init failed: ${init.stderr}`);
  const created = await runClinic(['api-key', 'create', '--name', 'test', '--json', '--data', dataDir]);
  if (created.code !== 0) throw new Error(`api-key create failed: ${created.stderr}`);
  const key = (JSON.parse(created.stdout) as { key: string }).key;
  const limit = documentLimitBytes === undefined ? [] : ['--document-limit-mb', String(documentLimitBytes / 1024 / 1024)];
  const network = [
    ...allowedHosts.flatMap((name) => ['--allowed-host', name]),
    ...allowedOrigins.flatMap((origin) => ['--allowed-origin', origin]),
  ];
  const serve = await startServeProcess(['--data', dataDir, ...limit, ...network]);
  const db = openDatabase(dataDir);
  return {
    db,
    dataDir,
    baseUrl: serve.baseUrl,
    key,
    createKey: (scopes) => createApiKey(db, { name: 'scoped', ...(scopes ? { scopes } : {}) }).key,
    logged: () => serve.logLines,
    request: requester(serve.baseUrl, key),
    async close() {
      serve.child.kill(STOP_SIGNAL);
      const { code } = await serve.exited;
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (code !== 0) throw new Error(`clinic serve exited with ${code}:\n${serve.output().stderr}`);
    },
  };
}

/**
 * A new certificate authority named `name` and a certificate it issued for the loopback names, both
 * valid from now for a year: `ca`, the authority's PEM a client trusts, and the server's `credentials`.
 */
export async function loopbackCredentials(name: string): Promise<{ ca: string; credentials: HttpsCredentials }> {
  const now = new Date();
  const year = new Date(now.getTime() + 365 * 24 * 3600 * 1000);
  const authority = await createCertificateAuthority(name, now, year);
  const server = await issueServerCertificate(authority, LOOPBACK_NAMES, now, year);
  return {
    ca: authority.certificatePem,
    credentials: { certificatePem: Buffer.from(server.certificatePem), keyPem: Buffer.from(server.keyPem) },
  };
}

/** The real HTTP(S) server of startLoggedHttpServer: its port, a key with every scope, every line it logged. */
export interface LoggedHttpServer {
  running: RunningHttpServer;
  port: number;
  key: string;
  logged: Record<string, unknown>[];
  /** Stops the server (waiting 1 s for its connections) and removes its data directory. */
  close(): Promise<void>;
}

/**
 * The real HTTP server (HTTPS with `tls`) in this process on an ephemeral port of 127.0.0.1, over
 * a new data directory, configured by `config` over the defaults, keeping every line it logs.
 */
export async function startLoggedHttpServer(config: Partial<ServerConfig> = {}, tls?: HttpsCredentials): Promise<LoggedHttpServer> {
  const dataDir = makeDataDir();
  const db = openDatabase(dataDir, { busyWait: 'fail' });
  const commits = new CommitGroups(db);
  const key = createApiKey(db, { name: 'test' }).key;
  const logged: Record<string, unknown>[] = [];
  const running = await startHttpServer(
    db,
    commits,
    {
      dataDir,
      jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
      documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
      logger: { info: (event) => logged.push(event), error: (event) => logged.push(event) },
      ...config,
    },
    '127.0.0.1',
    0,
    tls,
  );
  return {
    running,
    port: running.port,
    key,
    logged,
    async close() {
      await running.close(1000);
      commits.flush();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The real server on an ephemeral loopback port over a new database in a temporary directory:
 * in this process, or with CLINIC_BIN set, that executable's `serve`.
 */
export async function startTestServer(config: Partial<ServerConfig> = {}, dataDir?: string): Promise<TestServer> {
  return testingExecutable ? startExecutableServer(config, dataDir) : startInProcessServer(config, dataDir);
}

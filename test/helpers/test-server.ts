import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { createApiKey, type Scope } from '../../src/domain/api-keys.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES, DEFAULT_JSON_BODY_LIMIT_BYTES, type ServerConfig } from '../../src/server/config.js';
import { silentLogger } from '../../src/server/logger.js';
import { startServer } from '../../src/server/start-server.js';
import { assertMatchesContract } from './contract.js';

/** A fresh temporary data directory, removed by the returned cleanup. */
export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'clinic-test-'));
}

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
  close(): Promise<void>;
}

/** The real server on an ephemeral loopback port over a new database in a temporary directory. */
export async function startTestServer(config: Partial<ServerConfig> = {}): Promise<TestServer> {
  const dataDir = makeDataDir();
  const db = openDatabase(dataDir);
  const running = await startServer(
    db,
    {
      dataDir,
      jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
      documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
      logger: silentLogger,
      ...config,
    },
    '127.0.0.1',
    0,
  );
  const baseUrl = `http://127.0.0.1:${running.port}/api/public/v1`;
  const key = createApiKey(db, { name: 'test' }).key;
  return {
    db,
    dataDir,
    baseUrl,
    key,
    createKey: (scopes) => createApiKey(db, { name: 'scoped', ...(scopes ? { scopes } : {}) }).key,
    async request(method, path, options = {}) {
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
    },
    async close() {
      await running.close();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

import type { Logger } from '../logger.js';

/** Every path of the public API is under this prefix (spec §4, §9). */
export const API_PREFIX = '/api/public/v1';

/** What the HTTP app needs besides the database. */
export interface ServerConfig {
  /** The data directory: documents are stored under it. */
  dataDir: string;
  /** Largest JSON body accepted (decisions.md §1: 4 MiB, so a 2,000,000-character avatar fits). */
  jsonBodyLimitBytes: number;
  /** Largest document upload accepted (decisions.md §1: 25 MiB by default). */
  documentLimitBytes: number;
  logger: Logger;
  /** The address the server listens on (`--host`): a `Host` header may name it. Default 127.0.0.1. */
  listenHost?: string;
  /** Further names a `Host` header may give (`--allowed-host`), normalised (network-policy.ts). */
  allowedHosts?: readonly string[];
  /** Web origins whose pages may call the API (`--allowed-origin`, CORS), normalised (network-policy.ts). */
  allowedOrigins?: readonly string[];
  /** How long a request (headers and body) may take to arrive; default REQUEST_TIMEOUT_MS. Tests shorten it. */
  requestTimeoutMs?: number;
}

export const DEFAULT_JSON_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_DOCUMENT_LIMIT_BYTES = 25 * 1024 * 1024;

/**
 * A request must arrive in full within this (else 408 REQUEST_TIMEOUT, its connection, file
 * handle and temporary file freed): a client trickling a body a byte at a time cannot hold them
 * for node:http's default of 300 s. 25 MiB, the default document limit, needs under 1 MB/s.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The headers alone must arrive within this, or within the request timeout if that is shorter. */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * Connections open at once, whoever holds them; node:http closes one more at once, unanswered.
 * Far above what a clinic's integrations hold (a pool of ten is usual), so that a client holding
 * many slow connections exhausts this instead of the process's file descriptors.
 */
export const MAX_CONNECTIONS = 256;

import type { DeskCommandFile } from '../domain/desk/desk-command-files.js';
import type { Db } from '../db/open-database.js';
import type { Caller } from '../domain/use-case.js';
import type { Role } from '../domain/people/roles.js';
import type { Logger } from '../logger.js';
import type { ConnectionLimits } from './connections/connection-limits.js';

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
  /** Other numbers for the connection limits than CONNECTION_LIMITS': tests and benchmarks try small ones. */
  connectionLimits?: Partial<ConnectionLimits>;
  /**
   * Runs a desk PC's command line as its person (POST /desk/commands): the program's own command
   * line, which `clinic serve` gives the server (src/cli/desk-pc-commands.ts). Absent: the server
   * runs no desk commands (503 DESK_COMMANDS_UNAVAILABLE), as when the app is built alone.
   */
  deskCommands?: DeskCommandRunner;
  /** Another clinic-wide budget of failed keys than CLINIC_FAILED_KEYS_ALLOWED (Infinity: none, as the benchmark measures before it). */
  clinicFailedKeysAllowed?: number;
}

/** How a desk PC's command runs: refused as the server PC's own, or the desk's, before it runs; else what it printed. */
export type DeskCommandRunner = (
  argv: readonly string[],
  server: { db: Db; dataDir: string },
  caller: Caller & { roles: readonly Role[] },
  /** The files the desk PC sent with it: `argv` names the server's copies; the command shows their desk PC names. */
  files: readonly DeskCommandFile[],
) => Promise<{ refused: 'server-pc' | 'local'; command: string } | { answer: DeskCommandAnswer }>;

/** What a desk PC's command printed, and its exit code (POST /desk/commands' answer). */
export interface DeskCommandAnswer {
  exit_code: number;
  stdout: string;
  stderr: string;
  download: string | null;
}

export const DEFAULT_JSON_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * A request must arrive in full within this (else 408 REQUEST_TIMEOUT, its connection, file
 * handle and temporary file freed): a client trickling a body a byte at a time cannot hold them
 * for node:http's default of 300 s. 25 MiB, the default document limit, needs under 1 MB/s.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The headers alone must arrive within this, or within the request timeout if that is shorter. */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * Connections open at once, whoever holds them. Far above what a clinic's integrations, desk PCs
 * and browsers hold (a pool of ten is usual), so that a client holding many slow connections runs
 * into this, and the limits below, instead of the process's file descriptors and memory (256 TLS
 * sockets in their handshake added about 45 MB to the server: docs/benchmarks.md).
 */
export const MAX_CONNECTIONS = 256;

/**
 * Connections one client address other than the PC's own may hold at once: an eighth of the
 * total, so that it takes eight machines to fill what others share, and three times the pool of
 * ten a busy integration holds, plus a browser's six.
 */
export const CONNECTIONS_PER_ADDRESS = 32;

/** Of MAX_CONNECTIONS, the slots only the PC's own 127.0.0.1 and ::1 may take: its integrations and IT's tools keep room whatever the network does. */
export const OWN_CONNECTIONS_RESERVE = 32;

/**
 * The TLS handshake must be done within this (node's default is 120 s, which let two empty
 * connections a second hold 240 slots). A LAN handshake takes milliseconds; a desk PC gives up
 * connecting after 3 s (clinic-api-1.3.md), so the server never cuts one a client still waits for.
 */
export const TLS_HANDSHAKE_TIMEOUT_MS = 5_000;

/**
 * How many connections the kernel may hold for the server to accept (node's default is 511; Linux
 * caps it at net.core.somaxconn, 4096 since 5.4). A client reconnecting in a loop overflowed 511
 * (2,511 connections dropped in 5 s), and a well-behaved client whose connection was dropped
 * waited for its retry a second later; the server accepts and refuses them within microseconds.
 */
export const LISTEN_BACKLOG = 4096;

/** How long a connection is kept open for its next request after an answer (node's default, said here). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** The connection rule as `clinic serve` runs it (connection-limits.ts; docs/design-choices.md says why each number). */
export const CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: MAX_CONNECTIONS,
  perAddress: CONNECTIONS_PER_ADDRESS,
  ownReserve: OWN_CONNECTIONS_RESERVE,
  firstRequestMs: HEADERS_TIMEOUT_MS,
  keepAliveMs: KEEP_ALIVE_TIMEOUT_MS,
  tlsHandshakeMs: TLS_HANDSHAKE_TIMEOUT_MS,
  // Half the cap: a clinic's own load stays far below it, so the waits shrink only under a flood.
  pressureFrom: 0.5,
  closeWaitingAtCap: true,
  logIntervalMs: 60_000,
};

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
}

export const DEFAULT_JSON_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_DOCUMENT_LIMIT_BYTES = 25 * 1024 * 1024;

import { statfs } from 'node:fs/promises';
import { probeDatabase } from '../../db/maintenance.js';
import type { Db } from '../../db/open-database.js';
import { storageFault } from '../../db/storage-errors.js';
import { PROGRAM_VERSION } from '../../version.js';
import type { WorkRunner } from '../use-case.js';

/** Below this much free space on the data directory's disk the server is unavailable (clinic-api-1.2.md, "Network"). */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

/** What GET /health says: for monitoring, never patient data. */
export interface Health {
  status: 'ok' | 'unavailable';
  version: string;
  /** `ok`, or why not: `busy` (another process holds the write lock past the wait), `full` (under 64 MiB free, or SQLite found the disk full), `failed` (the file cannot be read or written). */
  database: 'ok' | 'busy' | 'full' | 'failed';
  /** Free bytes for this user on the data directory's disk; null when the system would not say. */
  disk_free_bytes: number | null;
  started_at: string;
}

/**
 * Probes what the server needs to serve: the database read and its write lock taken (a BEGIN
 * IMMEDIATE through the front end's runner, writing nothing, so nothing is fsynced), and room on
 * the data directory's disk.
 */
export async function checkHealth(db: Db, runner: WorkRunner, dataDir: string, startedAt: string): Promise<Health> {
  let database: Health['database'] = 'ok';
  try {
    await runner.run('read-then-write', () => probeDatabase(db));
  } catch (error) {
    database = storageFault(error) ?? 'failed';
  }
  let free: number | null = null;
  try {
    const disk = await statfs(dataDir);
    free = disk.bavail * disk.bsize;
  } catch {
    // The system would not say: the disk is then not what makes the server unavailable.
  }
  if (database === 'ok' && free !== null && free < MIN_FREE_BYTES) database = 'full';
  return {
    status: database === 'ok' ? 'ok' : 'unavailable',
    version: PROGRAM_VERSION,
    database,
    disk_free_bytes: free,
    started_at: startedAt,
  };
}

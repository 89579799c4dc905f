import type { Db } from '../../db/open-database.js';
import { purgeErasedPatients } from '../../domain/retention/purge-patients.js';
import type { WorkRunner } from '../../domain/use-case.js';
import type { Logger } from '../../logger.js';
import { repeatPasses, type PassLoop } from './pass-loop.js';

/** An hour: a kept item is purged on the day after its last, so a pass each hour finds it that day. */
const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Purges what erased patients' retention no longer keeps (purge-patients.ts), at `clinic serve`'s
 * start and hourly. The log gets patient numbers and counts, never a name.
 */
export function startPurgeWorker(db: Db, dataDir: string, runner: WorkRunner, { logger }: { logger: Logger }): PassLoop {
  return repeatPasses(async () => {
    try {
      const { purges, filesLeft } = await purgeErasedPatients(db, dataDir, runner, new Date().toISOString());
      for (const purge of purges) logger.info({ event: 'patient_purged', ...purge });
      if (filesLeft > 0) logger.error({ event: 'purged_files_left', files: filesLeft });
    } catch (error) {
      logger.error({ event: 'purge_failed', error: error instanceof Error ? error.message : String(error) });
    }
  }, PURGE_EVERY_MS);
}

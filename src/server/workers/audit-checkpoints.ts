import { anchorFolderOf } from '../../domain/audit/audit-anchor.js';
import { checkpointTrail, type CheckpointOutcome } from '../../domain/audit/anchor-trail.js';
import type { Db } from '../../db/open-database.js';
import type { Logger } from '../../logger.js';
import type { CommitGroups } from '../writes/commit-groups.js';

/** How often `clinic serve` anchors the trail's head: an hour of events at most is not yet anchored. */
export const CHECKPOINT_EVERY_MS = 60 * 60_000;

/** The server's checkpoints of the audit trail. */
export interface AuditCheckpoints {
  /** Stops the timer and writes the last checkpoint, of the trail as the server leaves it. */
  stop(): Promise<void>;
}

/** Logs what writing a checkpoint came to: written (and an anchor made), or refused with its reason (an error line). */
export function logCheckpoint(logger: Logger, outcome: CheckpointOutcome, dataDir: string): void {
  if ('written' in outcome) {
    const { seq, kind } = outcome.written;
    // Each data directory's first start of this program makes one; a folder renamed away makes
    // a second one, and the line says so: it is no warning of its own, but IT can read it.
    if (outcome.anchorMade) {
      logger.info({
        event: 'audit_anchor_made',
        folder: anchorFolderOf(dataDir),
        from_seq: seq,
        note: `no anchor was found: a new key was made and the trail is anchored from event ${seq} on; clinic audit verify says what is checked`,
      });
    }
    logger.info({ event: 'audit_checkpoint', seq, kind });
  } else if ('refused' in outcome) {
    logger.error({ event: 'audit_checkpoint_refused', data_dir: dataDir, reason: outcome.refused });
  }
}

/**
 * Anchors the audit trail's head while `clinic serve` runs (src/domain/audit/audit-anchor.ts):
 * at start, every `everyMs`, and at stop. The head is read through the commit groups, so a
 * checkpoint never names an event of a group not yet committed. A checkpoint that cannot be
 * written (the trail no longer follows the last one, the anchor of another user) is logged and
 * tried again at the next turn; nothing here stops the server.
 */
export function startAuditCheckpoints(
  db: Db,
  commits: CommitGroups,
  dataDir: string,
  logger: Logger,
  everyMs = CHECKPOINT_EVERY_MS,
): AuditCheckpoints {
  let pass: Promise<void> = Promise.resolve();
  const write = () => {
    pass = pass.then(async () => {
      try {
        logCheckpoint(logger, await checkpointTrail((work) => commits.run('read', work), db, dataDir, { kind: 'serve' }), dataDir);
      } catch (error) {
        logger.error({
          event: 'audit_checkpoint_refused',
          data_dir: dataDir,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    });
    return pass;
  };
  void write();
  const timer = setInterval(() => void write(), everyMs);
  // The hourly checkpoint never keeps a process alive on its own.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await write();
    },
  };
}

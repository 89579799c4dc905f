import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { highestChangeSeq, insertLostRange, lastChangeSeq, readHighestChangeSeq, type LostRangeRow } from '../../db/change-events.js';
import { type Db } from '../../db/open-database.js';
import { DATABASE_FILE } from '../../db/data-directory.js';
import { describeFailure } from '../maintenance/failure-text.js';

/**
 * The change feed after a restore (issue 39, M4). A backup holds the feed up to the moment it was
 * made; the database it replaces may have handed out later numbers (`evt_304`…`evt_308`), to
 * consumers of GET /events and as webhook-ids. Numbering on from the backup would give those
 * numbers again to other events, which a Standard Webhooks receiver drops as duplicates, and
 * leave a consumer at 308 waiting in silence. So the restore marks every number that may have
 * been handed out as lost: new events are numbered after it, and a consumer holding one is told
 * to start again (FEED_POSITION_LOST).
 */

/**
 * How many numbers are marked lost when the replaced database cannot be read (not named, gone,
 * damaged): more than any clinic's feed grows between a backup and its restore (a busy clinic
 * makes a few thousand events a day: a million is years), and far from exhausting seq (2^53).
 */
export const LOST_POSITIONS_MARGIN = 1_000_000;

/** What the replaced database says of the feed: the largest seq it handed out, or why it could not be read. */
export type ReplacedFeed = { highestSeq: number } | { unreadable: string } | undefined;

/**
 * The largest seq the data directory `dataDir`, which a restore replaces (`restore --replaces`),
 * handed out, read without changing anything in it; or why it cannot be read.
 */
export function readReplacedFeed(dataDir: string): NonNullable<ReplacedFeed> {
  const path = join(dataDir, DATABASE_FILE);
  if (!existsSync(path)) return { unreadable: `${path} does not exist` };
  try {
    return { highestSeq: readHighestChangeSeq(path) };
  } catch (error) {
    return { unreadable: `${path} cannot be read: ${describeFailure(error)}` };
  }
}

/** The numbers a restore marked lost, and where a consumer that held one starts again. */
export interface LostFeedPositions {
  first_seq: number;
  last_seq: number;
  /** `replaced_database`: read from it; `margin`: it was not known (LOST_POSITIONS_MARGIN). */
  bound: LostRangeRow['bound'];
  /** The last event's seq before them (0 when none): `after` for a consumer that starts again. */
  restart_after: number;
  /** Why the replaced database was not read, when it was named but could not be. */
  unreadable: string | null;
}

/**
 * Marks, in a database just restored from a backup made at `backupCreatedAt`, the numbers of the
 * feed that the database it replaces may have handed out after the backup: up to the largest seq
 * that database had, when it was read; else a margin of LOST_POSITIONS_MARGIN. Nothing is marked
 * when the replaced database handed out no number the backup lacks. Call in a write transaction.
 */
export function markFeedRestored(db: Db, replaced: ReplacedFeed, backupCreatedAt: string, restoredAt: string): LostFeedPositions | null {
  const highest = highestChangeSeq(db);
  const known = replaced !== undefined && 'highestSeq' in replaced ? replaced.highestSeq : undefined;
  const lastSeq = known ?? highest + LOST_POSITIONS_MARGIN;
  if (lastSeq <= highest) return null;
  const bound = known === undefined ? 'margin' : 'replaced_database';
  insertLostRange(db, { first_seq: highest + 1, last_seq: lastSeq, restored_at: restoredAt, backup_created_at: backupCreatedAt, bound });
  return {
    first_seq: highest + 1,
    last_seq: lastSeq,
    bound,
    restart_after: lastChangeSeq(db),
    unreadable: replaced !== undefined && 'unreadable' in replaced ? replaced.unreadable : null,
  };
}

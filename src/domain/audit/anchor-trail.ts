import { setImmediate as nextTurn } from 'node:timers/promises';
import { auditEventHash, lastAuditEvent, listAuditEventRows } from '../../db/audit-events.js';
import type { Db } from '../../db/open-database.js';
import { errors } from '../../errors.js';
import { anchorFolderOf, appendCheckpoint, readAnchor, type Checkpoint, type CheckpointKind } from './audit-anchor.js';
import { presentAuditEvent } from './audit-event.js';
import { eventProblem, verifyAuditTrail, type AuditTrailVerified } from './verify-audit-trail.js';

/** What the anchor says of a trail that verifies, as `clinic audit verify --json` adds it after 1.2.0's fields. */
export type AnchorReport =
  | {
      /** Every checkpoint matched the trail. */
      state: 'checked';
      checkpoints: number;
      last_checkpoint: { seq: number; at: string; kind: CheckpointKind } | null;
      /** Events after the last checkpoint: not anchored yet. */
      unanchored_events: number;
      /** The restore this anchor began with (a restore makes a new one), or null. */
      restored: { at: string; backup_created_at: string; backup_last_seq: number } | null;
    }
  /** No anchor in the data directory: nothing anchors the trail's end. */
  | { state: 'missing'; folder: string }
  /** This user may not read the anchor (a desk user): the checkpoints were not checked. */
  | { state: 'unreadable'; reason: string };

/** `clinic audit verify --json` when the chain holds and matches every checkpoint. */
export interface AnchoredTrailVerified extends AuditTrailVerified {
  anchor: AnchorReport;
}

/** The first checkpoint the trail no longer matches, with the seq of the last one before it that does (0: none). */
function firstUnmatched(db: Db, checkpoints: readonly Checkpoint[], lastSeq: number): { lastGood: number; reason: string } | undefined {
  let lastGood = 0;
  for (const checkpoint of checkpoints) {
    const hash = auditEventHash(db, checkpoint.seq);
    if (hash === checkpoint.hash) {
      lastGood = Math.max(lastGood, checkpoint.seq);
      continue;
    }
    const what = `its checkpoint of ${checkpoint.at} (${checkpoint.kind})`;
    const reason =
      checkpoint.seq > lastSeq
        ? `the trail ends at event ${lastSeq}, but ${what} recorded event ${checkpoint.seq}: events were removed from its end, or an older copy of the database was put in its place`
        : `event ${checkpoint.seq} no longer has the hash ${what} recorded: the trail was rewritten after event ${lastGood} and its hashes chained anew`;
    return { lastGood, reason };
  }
  return undefined;
}

/**
 * The anchor's findings on a trail whose chain verifies: AUDIT_CHECKPOINT_INVALID for a
 * checkpoint without the key's signature, AUDIT_CHAIN_BROKEN naming the first event after the
 * last checkpoint that still matches; else what it checked. A missing or unreadable anchor is
 * reported as such, never as checked.
 */
function checkAnchor(db: Db, dataDir: string, lastSeq: number): AnchorReport {
  const anchor = readAnchor(dataDir);
  if (anchor.state === 'missing') return { state: 'missing', folder: anchorFolderOf(dataDir) };
  if (anchor.state === 'unreadable') return { state: 'unreadable', reason: anchor.reason };
  if (anchor.invalid.length > 0) throw errors.auditCheckpointInvalid(anchorFolderOf(dataDir), anchor.invalid);
  const unmatched = firstUnmatched(db, anchor.checkpoints, lastSeq);
  if (unmatched !== undefined) throw errors.auditChainBroken(unmatched.lastGood + 1, unmatched.reason);
  const last = anchor.checkpoints.at(-1);
  const restore = anchor.checkpoints.find((checkpoint) => checkpoint.kind === 'restore' && checkpoint.restored_from !== undefined);
  return {
    state: 'checked',
    checkpoints: anchor.checkpoints.length,
    last_checkpoint: last === undefined ? null : { seq: last.seq, at: last.at, kind: last.kind },
    unanchored_events: lastSeq - (last?.seq ?? 0),
    restored:
      restore === undefined
        ? null
        : { at: restore.at, backup_created_at: restore.restored_from!.created_at, backup_last_seq: restore.restored_from!.seq },
  };
}

/**
 * `clinic audit verify`: the whole chain recomputed (verifyAuditTrail), then every checkpoint of
 * the data directory's anchor held against it: a trail rewritten and chained anew, cut at its
 * end, or replaced by an older copy no longer has the event a checkpoint recorded.
 */
export function verifyAnchoredTrail(db: Db, dataDir: string): AnchoredTrailVerified {
  const chain = verifyAuditTrail(db);
  return { ...chain, anchor: checkAnchor(db, dataDir, chain.last_seq) };
}

/** `clinic check`'s findings on the anchor (the chain's own are checked apart): none where it is missing or this user may not read it. */
export function anchorFindings(db: Db, dataDir: string, lastSeq: number): string[] {
  try {
    checkAnchor(db, dataDir, lastSeq);
    return [];
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'AUDIT_CHAIN_BROKEN' && code !== 'AUDIT_CHECKPOINT_INVALID') throw error;
    const seq = (error as { details: { seq?: number } }).details.seq;
    return [`${code}${seq === undefined ? '' : ` at event ${seq}`}: ${(error as Error).message}`];
  }
}

/** Reads from the database in the caller's way: the server's commit groups (never a group's uncommitted rows), or a connection's own. */
export type TrailReader = <T>(work: () => T) => Promise<T>;

/** What writing a checkpoint came to. */
export type CheckpointOutcome =
  | { written: Checkpoint; anchorMade: boolean }
  | { skipped: 'empty' | 'unchanged' }
  /** Not written, and why: the trail no longer follows the last checkpoint, or the anchor cannot be used. */
  | { refused: string };

/** Events verified per read while a checkpoint is written: the server's event loop is let go in between. */
const SLICE = 2000;

/**
 * Appends a checkpoint of the trail's head (or of `head`, a backup's) to the anchor of
 * `dataDir`, made by the data directory's owner when there is none. Each checkpoint extends the
 * one before: the event that one recorded must still have its hash, and every event since must
 * verify (read a slice at a time, through `read`); otherwise nothing is written and the reason
 * is returned, for the caller to log. Nothing is written while the head has not moved, but for
 * a restore. A trail found without an anchor is anchored as found (`audit verify` checks what
 * came before).
 */
export async function checkpointTrail(
  read: TrailReader,
  db: Db,
  dataDir: string,
  checkpoint: {
    kind: CheckpointKind;
    head?: { seq: number; hash: string };
    backup_created_at?: string;
    restored_from?: Checkpoint['restored_from'];
  },
): Promise<CheckpointOutcome> {
  const head = checkpoint.head ?? (await read(() => lastAuditEvent(db)));
  if (head === undefined) return { skipped: 'empty' };
  const anchor = readAnchor(dataDir);
  if (anchor.state === 'unreadable') return { refused: anchor.reason };
  if (anchor.state === 'read' && anchor.invalid.length > 0)
    return { refused: errors.auditCheckpointInvalid(anchorFolderOf(dataDir), anchor.invalid).message };
  const last = anchor.state === 'read' ? anchor.checkpoints.at(-1) : undefined;
  if (last !== undefined) {
    if (checkpoint.kind !== 'restore' && last.seq === head.seq && last.hash === head.hash) return { skipped: 'unchanged' };
    const problem = await problemSince(read, db, last, head.seq);
    if (problem !== undefined) return { refused: problem };
  }
  const { head: _head, ...rest } = checkpoint;
  try {
    const appended = appendCheckpoint(dataDir, { seq: head.seq, hash: head.hash, ...rest });
    return { written: appended.checkpoint, anchorMade: appended.made };
  } catch (error) {
    return { refused: `the checkpoint could not be written to ${anchorFolderOf(dataDir)}: ${(error as Error).message}` };
  }
}

/** Why the trail up to `headSeq` does not extend `last`, or undefined when it does. */
async function problemSince(read: TrailReader, db: Db, last: Checkpoint, headSeq: number): Promise<string | undefined> {
  if (headSeq < last.seq) return `the trail ends at event ${headSeq}, before event ${last.seq} of its checkpoint of ${last.at}`;
  if ((await read(() => auditEventHash(db, last.seq))) !== last.hash)
    return `event ${last.seq} no longer has the hash its checkpoint of ${last.at} recorded: the trail was changed`;
  let expectedSeq = last.seq + 1;
  let prevHash = last.hash;
  while (expectedSeq <= headSeq) {
    const after = expectedSeq - 1;
    const rows = await read(() =>
      listAuditEventRows(db, { patientId: null, actions: null, from: null, to: null, after, limit: Math.min(SLICE, headSeq - after) }),
    );
    if (rows.length === 0) return `event ${expectedSeq} is missing`;
    for (const row of rows) {
      const problem = eventProblem(presentAuditEvent(row), expectedSeq, prevHash);
      if (problem !== undefined) return `event ${row.seq} does not verify: ${problem}`;
      expectedSeq = row.seq + 1;
      prevHash = row.hash;
    }
    await nextTurn();
  }
  return undefined;
}

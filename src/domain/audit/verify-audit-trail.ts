import { iterateAuditEvents } from '../../db/audit-events.js';
import type { Db } from '../../db/open-database.js';
import { errors } from '../../errors.js';
import { createHash } from 'node:crypto';
import { canonicalJson, FIRST_PREV_HASH, presentAuditEvent, subjectTypeOf } from './audit-event.js';
import { AUDIT_ACTIONS, type AuditAction } from '../../audit-actions.js';

/** `clinic audit verify --json` when the chain holds. */
export interface AuditTrailVerified {
  ok: true;
  events: number;
  /** 0 while the trail is empty. */
  last_seq: number;
  /** Null while the trail is empty. */
  last_hash: string | null;
}

const ACTIONS: ReadonlySet<string> = new Set(AUDIT_ACTIONS);

/**
 * Recomputes the whole chain in seq order: each event must follow the one before (seq one more,
 * prev_hash its hash; the first seq 1 after 64 zeros) and its hash must be that of its fields.
 * Read one row at a time, so a long trail costs time, not memory. Throws AUDIT_CHAIN_BROKEN
 * naming the first event that does not verify: a changed field, a removed event (the next one
 * no longer follows) or one inserted out of order. Removing the newest events leaves a shorter
 * chain that still verifies: compare `last_seq` and `last_hash` with an earlier verification or
 * a backup to see that.
 */
export function verifyAuditTrail(db: Db): AuditTrailVerified {
  let expectedSeq = 1;
  let prevHash = FIRST_PREV_HASH;
  for (const row of iterateAuditEvents(db)) {
    const problem = eventProblem(presentAuditEvent(row), expectedSeq, prevHash);
    if (problem !== undefined) throw errors.auditChainBroken(row.seq, problem);
    expectedSeq = row.seq + 1;
    prevHash = row.hash;
  }
  return { ok: true, events: expectedSeq - 1, last_seq: expectedSeq - 1, last_hash: expectedSeq === 1 ? null : prevHash };
}

/** Why an event does not verify after the one before it (seq `expectedSeq - 1`, hash `prevHash`), or undefined when it does. */
export function eventProblem(event: ReturnType<typeof presentAuditEvent>, expectedSeq: number, prevHash: string): string | undefined {
  if (event.seq !== expectedSeq) {
    return event.seq > expectedSeq
      ? `event ${expectedSeq}${event.seq - expectedSeq > 1 ? `–${event.seq - 1}` : ''} is missing before it`
      : `its seq does not follow event ${expectedSeq - 1}`;
  }
  if (event.prev_hash !== prevHash) return 'its prev_hash is not the hash of the event before it';
  const { hash, ...fields } = event;
  // node:crypto's SHA-256, not the trail's own (sha256.ts): verifying hashes every event, where its native speed tells.
  if (createHash('sha256').update(canonicalJson(fields), 'utf8').digest('hex') !== hash)
    return 'its hash is not the hash of its fields: a field was changed after it was recorded';
  if (!ACTIONS.has(event.action) || event.subject_type !== subjectTypeOf(event.action as AuditAction)) {
    return `its action "${event.action}" is not one the program records`;
  }
  return undefined;
}

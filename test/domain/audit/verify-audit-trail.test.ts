// src/domain/audit/verify-audit-trail.ts: recomputing the chain, AUDIT_CHAIN_BROKEN (clinic-api-1.2.md, "Audit trail").
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { FIRST_PREV_HASH, type Actor, type AuditEvent } from '../../../src/domain/audit/audit-event.js';
import { appendAuditEvents, DATA_EXPORT } from '../../../src/domain/audit/record-audit.js';
import { eventProblem, verifyAuditTrail } from '../../../src/domain/audit/verify-audit-trail.js';
import { AppError } from '../../../src/errors.js';
import { canonical, RECORDED_BY_MARIA, trailOf } from '../../helpers/audit-chain.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

// `clinic audit verify` and `clinic check` recompute the chain (clinic-api-1.2.md, "Audit trail"):
// AUDIT_CHAIN_BROKEN names the first seq that does not verify.

const frontDesk: Actor = { type: 'cli', id: 'maria', name: 'maria', source: 'reception-pc', requestId: null };

/** `count` data.export events, each committed on its own. */
function recordEvents(db: Db, count: number): void {
  for (let i = 0; i < count; i++) db.transaction(() => appendAuditEvents(db, frontDesk, [DATA_EXPORT]))();
}

/** The seq and reason AUDIT_CHAIN_BROKEN names, or fails when the trail verifies or another error is thrown. */
function brokenAt(db: Db): { seq: unknown; message: string } {
  try {
    verifyAuditTrail(db);
  } catch (error) {
    assert.ok(error instanceof AppError && error.code === 'AUDIT_CHAIN_BROKEN', `AUDIT_CHAIN_BROKEN, not ${String(error)}`);
    return { seq: error.details.seq, message: error.message };
  }
  assert.fail('the trail verified');
}

/** An event that hashes to its own hash, with `fields` as given. */
function hashedEvent(fields: Partial<AuditEvent>): AuditEvent {
  const event = {
    seq: 1,
    at: '2026-11-30T08:00:00.000Z',
    action: 'data.export',
    patient_id: null,
    patient_number: null,
    subject_type: 'data',
    subject_id: null,
    ...RECORDED_BY_MARIA,
    prev_hash: FIRST_PREV_HASH,
    ...fields,
  };
  return { ...event, hash: createHash('sha256').update(canonical(event), 'utf8').digest('hex') } as AuditEvent;
}

describe('verifying the audit trail', () => {
  const data = useTestDatabase({ each: true });

  it('verifies an empty trail: no events, last seq 0, no last hash', () => {
    assert.deepEqual(verifyAuditTrail(data.db), { ok: true, events: 0, last_seq: 0, last_hash: null });
  });

  it('verifies a whole trail, giving its last seq and hash to compare with a later verification', () => {
    recordEvents(data.db, 3);
    const last = trailOf(data.dataDir).at(-1)!;
    assert.deepEqual(verifyAuditTrail(data.db), { ok: true, events: 3, last_seq: 3, last_hash: last.hash });
  });

  it('finds a field changed after it was recorded, naming its seq', () => {
    recordEvents(data.db, 3);
    data.db.exec('DROP TRIGGER audit_trail_append_only_on_update; UPDATE audit_trail SET at = at + 1 WHERE seq = 2;');
    const broken = brokenAt(data.db);
    assert.equal(broken.seq, 2);
    assert.match(broken.message, /a field was changed after it was recorded/);
  });

  it('finds an event removed from the middle at the first one that no longer follows', () => {
    recordEvents(data.db, 4);
    data.db.exec('DROP TRIGGER audit_trail_append_only_on_delete; DELETE FROM audit_trail WHERE seq IN (2, 3);');
    const broken = brokenAt(data.db);
    assert.equal(broken.seq, 4);
    assert.match(broken.message, /event 2–3 is missing before it/);
  });

  it('cannot see the newest events removed: the shorter chain verifies, and only its last seq and hash tell', () => {
    recordEvents(data.db, 3);
    const before = verifyAuditTrail(data.db);
    data.db.exec('DROP TRIGGER audit_trail_append_only_on_delete; DELETE FROM audit_trail WHERE seq = 3;');
    const after = verifyAuditTrail(data.db);
    assert.deepEqual([after.ok, after.last_seq], [true, 2]);
    assert.notEqual(after.last_hash, before.last_hash, 'the last hash differs from the earlier verification');
  });

  it('refuses an event out of order, one chained to another, and an action the program never records, though each hashes right', () => {
    const first = hashedEvent({});
    assert.equal(eventProblem(first, 1, FIRST_PREV_HASH), undefined, 'the first event follows 64 zeros');
    assert.equal(eventProblem(hashedEvent({ seq: 2, prev_hash: first.hash }), 2, first.hash), undefined);
    assert.match(eventProblem(hashedEvent({ seq: 1, prev_hash: first.hash }), 2, first.hash) ?? '', /its seq does not follow event 1/);
    assert.match(eventProblem(hashedEvent({ seq: 3, prev_hash: first.hash }), 2, first.hash) ?? '', /event 2 is missing before it/);
    assert.match(eventProblem(hashedEvent({ seq: 2 }), 2, first.hash) ?? '', /prev_hash is not the hash of the event before/);
    assert.match(
      eventProblem(hashedEvent({ action: 'data.delete' as AuditEvent['action'] }), 1, FIRST_PREV_HASH) ?? '',
      /"data\.delete" is not one the program/,
    );
    assert.match(
      eventProblem(hashedEvent({ subject_type: 'patient' }), 1, FIRST_PREV_HASH) ?? '',
      /not one the program records/,
      'an action under another subject',
    );
  });
});

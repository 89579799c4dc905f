// src/domain/audit/anchor-trail.ts: the audit trail held to its anchor's signed checkpoints (issue 39, M2; clinic-api-1.2.md, "Audit trail").
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { ANCHOR_DIR } from '../../../src/domain/audit/audit-anchor.js';
import type { Actor } from '../../../src/domain/audit/audit-event.js';
import { anchorFindings, checkpointTrail, verifyAnchoredTrail, type TrailReader } from '../../../src/domain/audit/anchor-trail.js';
import { appendAuditEvents, DATA_EXPORT } from '../../../src/domain/audit/record-audit.js';
import { AppError } from '../../../src/errors.js';
import { trailOf } from '../../helpers/audit-chain.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

// The audit trail held to its anchor's signed checkpoints (issue 39, M2; docs/install.md, "The
// audit trail"): what `clinic audit verify`, `clinic check`, `clinic backup` and `clinic serve` rely on.

const frontDesk: Actor = { type: 'cli', id: 'maria', name: 'maria', source: 'reception-pc', requestId: null };
/** Reads on the test's own connection, as the desk does. */
const read: TrailReader = async (work) => work();

/** `count` data.export events, each committed on its own. */
function recordEvents(db: Db, count: number): void {
  for (let i = 0; i < count; i++) db.transaction(() => appendAuditEvents(db, frontDesk, [DATA_EXPORT]))();
}

/** The code and seq `audit verify` refuses with, or fails when it verifies. */
function refusalOf(db: Db, dataDir: string): { code: string; seq: unknown; message: string } {
  try {
    verifyAnchoredTrail(db, dataDir);
  } catch (error) {
    assert.ok(error instanceof AppError, `a coded refusal, not ${String(error)}`);
    return { code: error.code, seq: error.details.seq, message: error.message };
  }
  assert.fail('the trail verified against its anchor');
}

describe('the audit trail and its anchor', () => {
  const data = useTestDatabase({ each: true });
  const checkpointsFile = () => join(data.dataDir, ANCHOR_DIR, 'checkpoints');

  it('says the anchor is missing, never checked, where no checkpoint was ever written', () => {
    recordEvents(data.db, 2);
    const verified = verifyAnchoredTrail(data.db, data.dataDir);
    assert.equal(verified.ok, true);
    assert.deepEqual(verified.anchor, { state: 'missing', folder: join(data.dataDir, ANCHOR_DIR) });
    assert.deepEqual(anchorFindings(data.db, data.dataDir, 2), [], '`clinic check` finds nothing to hold against');
  });

  it('writes no checkpoint of an empty trail, makes the anchor with the first, and skips one while the head has not moved', async () => {
    assert.deepEqual(await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' }), { skipped: 'empty' });
    recordEvents(data.db, 2);
    const first = await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    assert.ok('written' in first, JSON.stringify(first));
    assert.deepEqual([first.written.seq, first.written.hash, first.anchorMade], [2, trailOf(data.dataDir)[1]!.hash, true]);
    assert.deepEqual(await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' }), { skipped: 'unchanged' });
    const restore = await checkpointTrail(read, data.db, data.dataDir, { kind: 'restore' });
    assert.ok(
      'written' in restore && !restore.anchorMade,
      `a restore's checkpoint is written at the same head: ${JSON.stringify(restore)}`,
    );
  });

  it('reports the checkpoints it held the trail to and the events not anchored yet', async () => {
    recordEvents(data.db, 1);
    await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    recordEvents(data.db, 1);
    await checkpointTrail(read, data.db, data.dataDir, { kind: 'backup', backup_created_at: '2026-11-30T18:00:00.000Z' });
    recordEvents(data.db, 3);
    const { anchor, last_seq } = verifyAnchoredTrail(data.db, data.dataDir);
    assert.equal(last_seq, 5);
    assert.ok(anchor.state === 'checked', JSON.stringify(anchor));
    assert.deepEqual(
      [anchor.checkpoints, anchor.last_checkpoint?.seq, anchor.last_checkpoint?.kind, anchor.unanchored_events, anchor.restored],
      [2, 2, 'backup', 3, null],
    );
  });

  it('finds the newest events removed, which the chain alone cannot, and writes no checkpoint over them', async () => {
    recordEvents(data.db, 3);
    await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    const before = readFileSync(checkpointsFile(), 'utf8');
    data.db.exec('DROP TRIGGER audit_trail_append_only_on_delete; DELETE FROM audit_trail WHERE seq = 3;');
    const refusal = refusalOf(data.db, data.dataDir);
    assert.deepEqual([refusal.code, refusal.seq], ['AUDIT_CHAIN_BROKEN', 1]);
    assert.match(refusal.message, /the trail ends at event 2, but its checkpoint .* recorded event 3: events were removed from its end/);
    const [finding, ...more] = anchorFindings(data.db, data.dataDir, 2);
    assert.deepEqual(more, []);
    assert.match(finding ?? '', /^AUDIT_CHAIN_BROKEN at event 1: .*removed from its end/, '`clinic check` names it too');
    const outcome = await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    assert.ok('refused' in outcome, JSON.stringify(outcome));
    assert.match(outcome.refused, /the trail ends at event 2, before event 3 of its checkpoint/);
    assert.equal(readFileSync(checkpointsFile(), 'utf8'), before, 'nothing written');
  });

  it('names the first event after the last checkpoint that still matches when the trail was rewritten', async () => {
    recordEvents(data.db, 2);
    await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    recordEvents(data.db, 2);
    await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    // Event 4 given another hash, as a rewrite chained anew leaves it: the chain is broken there too,
    // so the anchor is asked directly (`clinic check` checks the chain apart).
    data.db.exec('DROP TRIGGER audit_trail_append_only_on_update; UPDATE audit_trail SET hash = zeroblob(32) WHERE seq = 4;');
    const [finding, ...more] = anchorFindings(data.db, data.dataDir, 4);
    assert.deepEqual(more, []);
    assert.match(finding ?? '', /^AUDIT_CHAIN_BROKEN at event 3: .*event 4 no longer has the hash .* rewritten after event 2/);
  });

  it('refuses checkpoints without the key signature: AUDIT_CHECKPOINT_INVALID naming the line, and none is added to them', async () => {
    recordEvents(data.db, 1);
    await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    const [line] = readFileSync(checkpointsFile(), 'utf8').split('\n');
    appendFileSync(checkpointsFile(), `${line!.replace('"seq":1', '"seq":2')}\n`);
    const refusal = refusalOf(data.db, data.dataDir);
    assert.equal(refusal.code, 'AUDIT_CHECKPOINT_INVALID');
    assert.match(refusal.message, /line 2 of its checkpoints file does not carry the signature/);
    recordEvents(data.db, 1);
    const outcome = await checkpointTrail(read, data.db, data.dataDir, { kind: 'serve' });
    assert.ok('refused' in outcome && /AUDIT_CHECKPOINT_INVALID|cannot be trusted/.test(outcome.refused), JSON.stringify(outcome));
  });

  it('reports the backup a restore began its anchor with', async () => {
    recordEvents(data.db, 2);
    const head = trailOf(data.dataDir)[1]!;
    await checkpointTrail(read, data.db, data.dataDir, {
      kind: 'restore',
      restored_from: { created_at: '2026-11-29T18:00:00.000Z', seq: 1, hash: trailOf(data.dataDir)[0]!.hash },
    });
    const { anchor } = verifyAnchoredTrail(data.db, data.dataDir);
    assert.ok(anchor.state === 'checked', JSON.stringify(anchor));
    assert.deepEqual(
      [anchor.last_checkpoint?.seq, anchor.restored?.backup_created_at, anchor.restored?.backup_last_seq],
      [head.seq, '2026-11-29T18:00:00.000Z', 1],
    );
  });
});

// src/domain/audit/export-audit-trail.ts: `clinic audit export --fhir` writing the trail (clinic-api-1.2.md, "Audit trail").
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import type { Actor } from '../../../src/domain/audit/audit-event.js';
import { exportFhirAuditEvents } from '../../../src/domain/audit/export-audit-trail.js';
import { appendAuditEvents, DATA_EXPORT } from '../../../src/domain/audit/record-audit.js';
import { AppError } from '../../../src/errors.js';
import { trailOf } from '../../helpers/audit-chain.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

// `clinic audit export --fhir FILE [--from D] [--to D]` (clinic-api-1.2.md, "Audit trail"): the
// events of a window as FHIR R4 AuditEvents, one per line, in seq order, recording nothing.

const frontDesk: Actor = { type: 'cli', id: 'maria', name: 'maria', source: 'reception-pc', requestId: null };
const NO_BOUND = { from: null, to: null };

/** `count` data.export events at `iso` on the program's clock, appended in one transaction. */
function recordAt(db: Db, iso: string, count = 1): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  db.transaction(() =>
    appendAuditEvents(
      db,
      frontDesk,
      Array.from({ length: count }, () => DATA_EXPORT),
    ),
  )();
  mock.timers.reset();
}

/** The seq of each AuditEvent of an NDJSON file, in the order written. */
const seqsIn = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => Number((JSON.parse(line) as { id: string }).id.replace('clinic-audit-', '')));

describe('exporting the audit trail as FHIR', () => {
  const data = useTestDatabase({ each: true });
  afterEach(() => mock.timers.reset());

  it('writes the events of [from, to): from its first instant, up to but not at its end', async () => {
    recordAt(data.db, '2026-11-30T08:00:00.000Z');
    recordAt(data.db, '2026-11-30T09:00:00.000Z');
    recordAt(data.db, '2026-11-30T10:00:00.000Z');
    const file = join(data.dataDir, 'window.ndjson');
    const window = { from: '2026-11-30T09:00:00.000Z', to: '2026-11-30T10:00:00.000Z' };
    const exported = await exportFhirAuditEvents(data.db, file, window, { replace: false });
    assert.deepEqual(exported, { file, events: 1, first_seq: 2, last_seq: 2 });
    assert.deepEqual(seqsIn(file), [2]);
    const [line] = readFileSync(file, 'utf8').split('\n');
    assert.equal((JSON.parse(line!) as { recorded: string }).recorded, '2026-11-30T09:00:00.000Z');
  });

  it('writes an empty file of an empty window, saying no seq', async () => {
    recordAt(data.db, '2026-11-30T08:00:00.000Z');
    const file = join(data.dataDir, 'empty.ndjson');
    const window = { from: '2026-12-01T00:00:00.000Z', to: null };
    assert.deepEqual(await exportFhirAuditEvents(data.db, file, window, { replace: false }), {
      file,
      events: 0,
      first_seq: null,
      last_seq: null,
    });
    assert.equal(readFileSync(file, 'utf8'), '');
  });

  it('writes a trail longer than one slice whole, each event once, in seq order, and records nothing itself', async () => {
    recordAt(data.db, '2026-11-30T08:00:00.000Z', 1001);
    const file = join(data.dataDir, 'all.ndjson');
    const exported = await exportFhirAuditEvents(data.db, file, NO_BOUND, { replace: false });
    assert.deepEqual(exported, { file, events: 1001, first_seq: 1, last_seq: 1001 });
    assert.deepEqual(
      seqsIn(file),
      Array.from({ length: 1001 }, (_, i) => i + 1),
    );
    assert.equal(trailOf(data.dataDir).length, 1001, 'reading the trail is not recorded in it');
  });

  it('refuses to write over a file it was not told to replace (409 FILE_EXISTS), and replaces one it was', async () => {
    recordAt(data.db, '2026-11-30T08:00:00.000Z');
    const file = join(data.dataDir, 'taken.ndjson');
    writeFileSync(file, 'an earlier export');
    const refusal = await exportFhirAuditEvents(data.db, file, NO_BOUND, { replace: false }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof AppError && refusal.code === 'FILE_EXISTS', `FILE_EXISTS, not ${String(refusal)}`);
    assert.equal(readFileSync(file, 'utf8'), 'an earlier export');
    await exportFhirAuditEvents(data.db, file, NO_BOUND, { replace: true });
    assert.deepEqual(seqsIn(file), [1]);
  });
});

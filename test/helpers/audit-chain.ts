import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { sqliteDriver } from '../../src/db/drivers/sqlite-driver.js';

// The audit trail as the tests read it (clinic-api-1.2.md, "Audit trail"): the event's shape, and
// the hash chain recomputed here with a canonical JSON of the tests' own, never the program's, so
// that a mistake in the program's canonical form or hash cannot hide itself.

export interface AuditEvent {
  seq: number;
  at: string;
  action: string;
  patient_id: string | null;
  patient_number: string | null;
  subject_type: string;
  subject_id: string | null;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  source: string;
  request_id: string | null;
  detail: Record<string, unknown> | null;
  prev_hash: string;
  hash: string;
}

/** The fields of an audit event of a test's own making that say who recorded it: maria at the reception PC's command line, with no request and no detail. */
export const RECORDED_BY_MARIA = {
  actor_type: 'cli',
  actor_id: 'maria',
  actor_name: 'maria',
  source: 'reception-pc',
  request_id: null,
  detail: null,
} as const;

/** Canonical JSON as the spec words it: keys sorted at every depth, no whitespace, values as JSON.stringify writes them. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map((item) => canonical(item)).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return '{' + entries.map(([key, item]) => JSON.stringify(key) + ':' + canonical(item)).join(',') + '}';
  }
  return JSON.stringify(value);
}

/** Asserts that `events` (the whole trail, in order) are seq 1, 2, 3… each chained by its hash to the one before. */
export function assertChain(events: readonly AuditEvent[]): void {
  let prev = '0'.repeat(64);
  events.forEach((event, index) => {
    assert.equal(event.seq, index + 1, 'seq 1, 2, 3… without gaps');
    assert.equal(event.prev_hash, prev, `the prev_hash of seq ${event.seq}`);
    const { hash, ...fields } = event;
    assert.equal(hash, createHash('sha256').update(canonical(fields), 'utf8').digest('hex'), `the hash of seq ${event.seq}`);
    prev = hash;
  });
}

/** Every event after `after` of the database in `dataDir`, read through a connection of its own (detail parsed). */
export function trailOf(dataDir: string, after = 0): AuditEvent[] {
  const raw = sqliteDriver().open(join(dataDir, 'clinic.db'));
  try {
    return (
      raw.prepare('SELECT * FROM audit_events WHERE seq > ? ORDER BY seq').all(after) as (AuditEvent & { detail: string | null })[]
    ).map((row) => ({ ...row, detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>) }));
  } finally {
    raw.close();
  }
}

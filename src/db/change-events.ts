import { preparedFor, type Db } from './open-database.js';
import { sqliteDriver } from './drivers/sqlite-driver.js';

/** A `change_events` row: the event without its id, its data as stored JSON text. */
export interface ChangeEventRow {
  seq: number;
  type: string;
  occurred_at: string;
  patient_id: string | null;
  data: string;
}

const COLUMNS = 'seq, type, occurred_at, patient_id, data';

/** A range of the feed's positions a restore left behind (schema.sql, change_feed_lost_ranges). */
export interface LostRangeRow {
  first_seq: number;
  last_seq: number;
  restored_at: string;
  backup_created_at: string;
  bound: 'replaced_database' | 'margin';
}

// The largest seq ever handed out: the last event's, or past it the end of the last range a
// restore left behind. Each is one probe of a primary key's last entry, however long the feed.
const HIGHEST_SEQ = `max(coalesce((SELECT max(seq) FROM change_events), 0),
  coalesce((SELECT last_seq FROM change_feed_lost_ranges ORDER BY first_seq DESC LIMIT 1), 0))`;

const statements = preparedFor((db) => ({
  // The largest seq handed out + 1, under the write lock the change holds: commit order without
  // gaps, and after a restore past every number the replaced database may have given. An event
  // about an erased patient says nothing of them (1.3.0): its data is {} (one probe of patients' id).
  insert: db.prepare<Omit<ChangeEventRow, 'seq'>>(
    `INSERT INTO change_events (seq, type, occurred_at, patient_id, data)
     VALUES (${HIGHEST_SEQ} + 1, @type, @occurred_at, @patient_id,
             CASE WHEN @patient_id IS NOT NULL AND EXISTS (SELECT 1 FROM patients WHERE id = @patient_id AND erased_at IS NOT NULL)
                  THEN '{}' ELSE @data END)`,
  ),
  // The primary key's last entry: one probe however long the feed.
  lastSeq: db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM change_events'),
  highestSeq: db.prepare<[], { seq: number }>(`SELECT ${HIGHEST_SEQ} AS seq`),
  insertLostRange: db.prepare<LostRangeRow>(
    `INSERT INTO change_feed_lost_ranges (first_seq, last_seq, restored_at, backup_created_at, bound)
     VALUES (@first_seq, @last_seq, @restored_at, @backup_created_at, @bound)`,
  ),
  // The range that holds a position, if any: the last that begins at or before it (ranges do not overlap).
  lostRangeFrom: db.prepare<[number], LostRangeRow>(
    'SELECT first_seq, last_seq, restored_at, backup_created_at, bound FROM change_feed_lost_ranges WHERE first_seq <= ? ORDER BY first_seq DESC LIMIT 1',
  ),
  lastSeqBefore: db.prepare<[number], { seq: number | null }>('SELECT max(seq) AS seq FROM change_events WHERE seq < ?'),
  // Positions lost below the last event (a range past it has no event after it yet), and events inside a range.
  lostBelow: db.prepare<[number], { positions: number }>(
    'SELECT coalesce(sum(last_seq - first_seq + 1), 0) AS positions FROM change_feed_lost_ranges WHERE last_seq < ?',
  ),
  eventsInLostRanges: db.prepare<[], { seq: number; first_seq: number; last_seq: number }>(
    `SELECT e.seq, r.first_seq, r.last_seq FROM change_feed_lost_ranges r
       JOIN change_events e ON e.seq BETWEEN r.first_seq AND r.last_seq ORDER BY e.seq`,
  ),
  after: db.prepare<[number, number], ChangeEventRow>(`SELECT ${COLUMNS} FROM change_events WHERE seq > ? ORDER BY seq LIMIT ?`),
  // One type's events after a seq: a range of change_events_by_type.
  ofTypeAfter: db.prepare<[string, number, number], ChangeEventRow>(
    `SELECT ${COLUMNS} FROM change_events WHERE type = ? AND seq > ? ORDER BY seq LIMIT ?`,
  ),
  extent: db.prepare<[], { count: number; last: number | null }>('SELECT count(*) AS count, max(seq) AS last FROM change_events'),
  triggers: db.prepare<[], { name: string }>(
    "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name IN ('change_events', 'change_feed_lost_ranges')",
  ),
  countAfter: db.prepare<[number], { count: number }>('SELECT count(*) AS count FROM change_events WHERE seq > ?'),
  countOfTypeAfter: db.prepare<[string, number], { count: number }>(
    'SELECT count(*) AS count FROM change_events WHERE type = ? AND seq > ?',
  ),
}));

export function insertChangeEvent(db: Db, row: Omit<ChangeEventRow, 'seq'>): void {
  statements(db).insert.run(row);
}

/** The seq of the last event; 0 while the feed is empty. */
export function lastChangeSeq(db: Db): number {
  return statements(db).lastSeq.get()?.seq ?? 0;
}

/** The largest seq ever handed out: the last event's, or the end of a range a restore left behind after it; 0 for a new feed. */
export function highestChangeSeq(db: Db): number {
  return statements(db).highestSeq.get()!.seq;
}

/** Records positions a restore left behind: no event will ever be numbered in them. */
export function insertLostRange(db: Db, range: LostRangeRow): void {
  statements(db).insertLostRange.run(range);
}

/**
 * The range a restore left behind that holds `seq`, with the last event's seq before it (0 when
 * none): where a consumer that held `seq` starts again. Undefined when `seq` lies in none.
 */
export function lostRangeHolding(db: Db, seq: number): (LostRangeRow & { seq_before: number }) | undefined {
  const { lostRangeFrom, lastSeqBefore } = statements(db);
  const range = lostRangeFrom.get(seq);
  if (range === undefined || range.last_seq < seq) return undefined;
  return { ...range, seq_before: lastSeqBefore.get(range.first_seq)?.seq ?? 0 };
}

/**
 * The first `limit` events after `after`, of `types` (null: of every type), in seq order. With
 * types, each type's events are read from its own index range, at most `limit` each, and merged:
 * the cost is bounded by the page, however many events of other types lie between.
 */
export function changeEventsAfter(db: Db, after: number, limit: number, types: readonly string[] | null): ChangeEventRow[] {
  const { after: all, ofTypeAfter } = statements(db);
  if (types === null) return all.all(after, limit);
  return types
    .flatMap((type) => ofTypeAfter.all(type, after, limit))
    .sort((a, b) => a.seq - b.seq)
    .slice(0, limit);
}

/** How many events after `after` are of `types` (null: of every type). */
export function countChangeEventsAfter(db: Db, after: number, types: readonly string[] | null): number {
  const { countAfter, countOfTypeAfter } = statements(db);
  if (types === null) return countAfter.get(after)!.count;
  return types.reduce((sum, type) => sum + countOfTypeAfter.get(type, after)!.count, 0);
}

/** The triggers that refuse UPDATE and DELETE on change_events and on its lost ranges (schema.sql). */
const FEED_TRIGGERS = [
  'change_events_are_append_only_on_update',
  'change_events_are_append_only_on_delete',
  'change_feed_lost_ranges_are_append_only_on_update',
  'change_feed_lost_ranges_are_append_only_on_delete',
] as const;

/**
 * What `clinic check` finds wrong with the feed: a missing append-only trigger, events missing
 * (fewer rows than the last seq less the positions a restore marked lost: a consumer following
 * it would never see them), or an event numbered inside such a range.
 */
export function changeFeedFindings(db: Db): string[] {
  const { extent, triggers, lostBelow, eventsInLostRanges } = statements(db);
  const present = new Set(triggers.all().map((row) => row.name));
  const findings = FEED_TRIGGERS.filter((name) => !present.has(name)).map(
    (name) => `the change feed's trigger ${name} is missing: its events could be changed or deleted unnoticed by SQLite`,
  );
  const { count, last } = extent.get()!;
  const misplaced = eventsInLostRanges.all();
  // Every number up to the last event's is an event or a lost position: count those outside the ranges.
  const outside = count - misplaced.length;
  const lost = lostBelow.get(last ?? 0)!.positions;
  if ((last ?? 0) - lost !== outside) {
    const restores = lost === 0 ? '' : ` (less ${lost} positions a restore left behind)`;
    findings.push(
      `the change feed has ${outside} events but its last is seq ${last ?? 0}${restores}: ${(last ?? 0) - lost - outside} missing`,
    );
  }
  for (const event of misplaced) {
    findings.push(`the change feed's event seq ${event.seq} lies in the range ${event.first_seq}–${event.last_seq} a restore left behind`);
  }
  return findings;
}

/**
 * The largest seq the database file at `path` handed out (one a restore replaces), read through a
 * read-only connection of its own, so nothing in it changes: its last event, or the end of a range
 * an earlier restore left behind; 0 for a database older than the feed. Throws when the file
 * cannot be read as a database.
 */
export function readHighestChangeSeq(path: string): number {
  const db = sqliteDriver().open(path, { readOnly: true });
  try {
    const tables = new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .all()
        .map((row) => row.name),
    );
    const read = (table: string, sql: string) => (tables.has(table) ? (db.prepare<[], { seq: number }>(sql).get()?.seq ?? 0) : 0);
    return Math.max(
      read('change_events', 'SELECT coalesce(max(seq), 0) AS seq FROM change_events'),
      read('change_feed_lost_ranges', 'SELECT coalesce(max(last_seq), 0) AS seq FROM change_feed_lost_ranges'),
    );
  } finally {
    db.close();
  }
}

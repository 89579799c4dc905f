import { preparedFor, type Db } from './open-database.js';

/** A `change_events` row: the event without its id, its data as stored JSON text. */
export interface ChangeEventRow {
  seq: number;
  type: string;
  occurred_at: string;
  patient_id: string | null;
  data: string;
}

const COLUMNS = 'seq, type, occurred_at, patient_id, data';

const statements = preparedFor((db) => ({
  // No seq: SQLite gives the rowid, the largest + 1, under the write lock the change holds.
  insert: db.prepare<Omit<ChangeEventRow, 'seq'>>(
    'INSERT INTO change_events (type, occurred_at, patient_id, data) VALUES (@type, @occurred_at, @patient_id, @data)',
  ),
  // The primary key's last entry: one probe however long the feed.
  lastSeq: db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM change_events'),
  after: db.prepare<[number, number], ChangeEventRow>(`SELECT ${COLUMNS} FROM change_events WHERE seq > ? ORDER BY seq LIMIT ?`),
  // One type's events after a seq: a range of change_events_by_type.
  ofTypeAfter: db.prepare<[string, number, number], ChangeEventRow>(
    `SELECT ${COLUMNS} FROM change_events WHERE type = ? AND seq > ? ORDER BY seq LIMIT ?`,
  ),
  extent: db.prepare<[], { count: number; last: number | null }>('SELECT count(*) AS count, max(seq) AS last FROM change_events'),
  triggers: db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'change_events'"),
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

/** The triggers that refuse UPDATE and DELETE on change_events (schema.sql). */
const FEED_TRIGGERS = ['change_events_are_append_only_on_update', 'change_events_are_append_only_on_delete'] as const;

/**
 * What `clinic check` finds wrong with the feed: a missing append-only trigger, or events missing
 * (fewer rows than the last seq: a consumer following it would never see them).
 */
export function changeFeedFindings(db: Db): string[] {
  const { extent, triggers } = statements(db);
  const present = new Set(triggers.all().map((row) => row.name));
  const findings = FEED_TRIGGERS.filter((name) => !present.has(name)).map(
    (name) => `the change feed's trigger ${name} is missing: its events could be changed or deleted unnoticed by SQLite`,
  );
  const { count, last } = extent.get()!;
  if ((last ?? 0) !== count)
    findings.push(`the change feed has ${count} events but its last is seq ${last ?? 0}: ${(last ?? 0) - count} missing`);
  return findings;
}

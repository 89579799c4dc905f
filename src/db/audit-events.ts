import { preparedFor, type Db } from './open-database.js';

/** An `audit_events` row: the event as GET /audit-events shows it, with `detail` as stored JSON text. */
export interface AuditEventRow {
  seq: number;
  at: string;
  action: string;
  patient_id: string | null;
  patient_number: string | null;
  subject_type: string;
  subject_id: string | null;
  actor_type: 'api_key' | 'cli';
  actor_id: string;
  actor_name: string;
  source: string;
  request_id: string | null;
  detail: string | null;
  prev_hash: string;
  hash: string;
}

/** Which events a list wants; a null field does not filter. */
export interface AuditEventFilter {
  patientId: string | null;
  /** JSON array of actions, or null for every action. */
  actions: string | null;
  from: string | null;
  to: string | null;
  /** Only events with a larger seq. */
  after: number;
  limit: number;
}

const COLUMNS =
  'seq, at, action, patient_id, patient_number, subject_type, subject_id, actor_type, actor_id, actor_name, source, request_id, detail, prev_hash, hash';

/** What every list filters by besides the condition its index serves. */
const OTHER_FILTERS = `
  AND (@actions IS NULL OR action IN (SELECT value FROM json_each(@actions)))
  AND (@from IS NULL OR at >= @from) AND (@to IS NULL OR at < @to)
  AND (@patientId IS NULL OR patient_id = @patientId)`;

const statements = preparedFor((db) => ({
  insert: db.prepare<AuditEventRow>(
    `INSERT INTO audit_events (${COLUMNS})
     VALUES (@seq, @at, @action, @patient_id, @patient_number, @subject_type, @subject_id, @actor_type, @actor_id, @actor_name,
             @source, @request_id, @detail, @prev_hash, @hash)`,
  ),
  // The primary key's last entry: one probe however long the trail.
  last: db.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1'),
  triggers: db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'audit_events'"),
  patientNumber: db.prepare<[string], { patient_number: string }>('SELECT patient_number FROM patients WHERE id = ?'),
  all: db.prepare<[], AuditEventRow>(`SELECT ${COLUMNS} FROM audit_events ORDER BY seq`),
  // One statement per index, so that each list reads a range of the index that serves it: a
  // patient's events (audit_events_by_patient), a window (audit_events_by_time), or all by seq.
  byPatient: db.prepare<AuditEventFilter, AuditEventRow>(
    `SELECT ${COLUMNS} FROM audit_events WHERE patient_id = @patientId AND seq > @after ${OTHER_FILTERS} ORDER BY seq LIMIT @limit`,
  ),
  byTime: db.prepare<AuditEventFilter, AuditEventRow>(
    `SELECT ${COLUMNS} FROM audit_events INDEXED BY audit_events_by_time
      WHERE at >= coalesce(@from, '') AND at < coalesce(@to, 'z') AND seq > @after ${OTHER_FILTERS} ORDER BY seq LIMIT @limit`,
  ),
  bySeq: db.prepare<AuditEventFilter, AuditEventRow>(
    `SELECT ${COLUMNS} FROM audit_events WHERE seq > @after ${OTHER_FILTERS} ORDER BY seq LIMIT @limit`,
  ),
}));

export function insertAuditEvent(db: Db, row: AuditEventRow): void {
  statements(db).insert.run(row);
}

/** The last event's seq and hash; undefined while the trail is empty. */
export function lastAuditEvent(db: Db): { seq: number; hash: string } | undefined {
  return statements(db).last.get();
}

/** The patient's number, for the events about it; undefined for an unknown id. */
export function patientNumberOf(db: Db, patientId: string): string | undefined {
  return statements(db).patientNumber.get(patientId)?.patient_number;
}

/** Every event in seq order, one row at a time (a trail may be longer than memory should hold). */
export function iterateAuditEvents(db: Db): IterableIterator<AuditEventRow> {
  return statements(db).all.iterate();
}

/** The events matching `filter`, in seq order, at most `filter.limit`. */
export function listAuditEventRows(db: Db, filter: AuditEventFilter): AuditEventRow[] {
  const { byPatient, byTime, bySeq } = statements(db);
  const statement = filter.patientId !== null ? byPatient : filter.from !== null || filter.to !== null ? byTime : bySeq;
  return statement.all(filter);
}

/** The triggers that refuse UPDATE and DELETE on audit_events (schema.sql). */
const AUDIT_TRIGGERS = ['audit_events_are_append_only_on_update', 'audit_events_are_append_only_on_delete'] as const;

/** Those of AUDIT_TRIGGERS the database does not have (someone dropped them). */
export function missingAuditTriggers(db: Db): string[] {
  const present = new Set(
    statements(db)
      .triggers.all()
      .map((row) => row.name),
  );
  return AUDIT_TRIGGERS.filter((name) => !present.has(name));
}

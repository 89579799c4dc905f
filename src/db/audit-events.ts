import {
  decodeAt,
  decodeHash,
  decodeSubject,
  encodeAt,
  encodeHash,
  encodeSubject,
  timeOf,
  ZERO_HASH,
  type StoredValue,
} from './audit-codec.js';
import { preparedFor, type Db } from './open-database.js';

/** An event of the audit trail as GET /audit-events shows it, with `detail` as stored JSON text. */
export interface AuditEventRow {
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
  detail: string | null;
  prev_hash: string;
  hash: string;
}

/** Which events a list wants; a null field does not filter. */
export interface AuditEventFilter {
  patientId: string | null;
  /** JSON array of actions, or null for every action. */
  actions: string | null;
  /** The window [from, to) as UTC ISO instants. */
  from: string | null;
  to: string | null;
  /** Only events with a larger seq. */
  after: number;
  limit: number;
}

/** The trail's last event, as appending the next one needs it. */
export interface AuditHead {
  seq: number;
  hash: string;
  at: string;
}

/** A row of audit_trail with what it refers to, as stored (audit-codec.ts decodes it). */
interface StoredEventRow {
  seq: number;
  at: number | string;
  action: string;
  subject_type: string;
  patient_id: string | null;
  patient_number: string | null;
  subject_id: StoredValue;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  source: string;
  request_id: string | null;
  detail: string | null;
  hash: StoredValue;
  prev_hash: StoredValue;
  /** The hash of the event before, where the statement reads it (a list's page). */
  before_hash?: StoredValue;
}

/** A row of audit_trail alone. */
interface StoredTrailRow {
  seq: number;
  at: number | string;
  action_code: number;
  patient_ref: number | null;
  subject_id: StoredValue;
  context_ref: number;
  hash: StoredValue;
  prev_hash: StoredValue;
}

/** What the events of one context share: who, from where, the request and its detail. */
interface SharedContext {
  actor_type: string;
  actor_id: string;
  actor_name: string;
  source: string;
  request_id: string | null;
  detail: string | null;
}

const STORED_COLUMNS = `t.seq, t.at, a.action, a.subject_type, p.patient_id, p.patient_number, t.subject_id,
  r.actor_type, r.actor_id, r.actor_name, r.source, c.request_id, c.detail, t.hash, t.prev_hash`;
const JOINS = `audit_trail t
  JOIN audit_actions a ON a.code = t.action_code
  LEFT JOIN audit_patients p ON p.ref = t.patient_ref
  JOIN audit_contexts c ON c.ref = t.context_ref
  JOIN audit_actors r ON r.ref = c.actor_ref`;

/** Seqs of one index range, in seq order: `@lo <= seq < @hi`, after the filters a range does not cover. */
type RangeQuery = { key: number | null; lo: number; hi: number; codes: string | null; limit: number };

/**
 * One statement per index, each reading one range of it in seq order (no sort), what its index
 * does not hold checked on the row: a patient's events (the actions asked for checked on each),
 * an action's, or all.
 */
const RANGE_SQL = {
  patient: `SELECT seq FROM audit_trail INDEXED BY audit_trail_by_patient
             WHERE patient_ref = @key AND seq >= @lo AND seq < @hi
               AND (@codes IS NULL OR action_code IN (SELECT value FROM json_each(@codes)))
             ORDER BY seq LIMIT @limit`,
  action: `SELECT seq FROM audit_trail INDEXED BY audit_trail_by_action
            WHERE action_code = @key AND seq >= @lo AND seq < @hi ORDER BY seq LIMIT @limit`,
  all: 'SELECT seq FROM audit_trail WHERE seq >= @lo AND seq < @hi ORDER BY seq LIMIT @limit',
};
/** A page's events by seq, each with the hash of the event before it (its prev_hash unless stored otherwise). */
const BY_SEQS_SQL = `SELECT ${STORED_COLUMNS}, (SELECT h.hash FROM audit_trail h WHERE h.seq < t.seq ORDER BY h.seq DESC LIMIT 1) AS before_hash
  FROM ${JOINS} WHERE t.seq IN (SELECT value FROM json_each(?)) ORDER BY t.seq`;
/** The rows that name a patient (one, unless its number was recorded in two ways), and the codes of actions. */
const PATIENT_REFS_SQL = 'SELECT ref FROM audit_patients WHERE patient_id = ?';
const ACTION_CODES_SQL = 'SELECT code FROM audit_actions WHERE action IN (SELECT value FROM json_each(?))';
/** The first event at or after a seq: one probe of the primary key, a step of a window's binary search. */
const AT_OR_AFTER_SQL = 'SELECT seq, at FROM audit_trail WHERE seq >= ? ORDER BY seq LIMIT 1';

const statements = preparedFor((db) => ({
  // The primary key's last entry: one probe however long the trail.
  last: db.prepare<[], { seq: number; hash: StoredValue; at: number | string }>(
    'SELECT seq, hash, at FROM audit_trail ORDER BY seq DESC LIMIT 1',
  ),
  triggers: db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name LIKE 'audit%'"),
  patientNumber: db.prepare<[string], { patient_number: string }>('SELECT patient_number FROM patients WHERE id = ?'),
  hashAt: db.prepare<[number], { hash: StoredValue }>('SELECT hash FROM audit_trail WHERE seq = ?'),
  // Each event's action and actor, kept once found (CommittedRefs); its patient, looked up each time.
  actions: new CommittedRefs<[string, string]>({
    find: db.prepare('SELECT code FROM audit_actions WHERE action = ? AND subject_type = ?'),
    add: db.prepare('INSERT INTO audit_actions (action, subject_type) VALUES (?, ?)'),
  }),
  patients: {
    find: db.prepare('SELECT ref FROM audit_patients WHERE patient_id IS ? AND patient_number IS ?'),
    add: db.prepare('INSERT INTO audit_patients (patient_id, patient_number) VALUES (?, ?)'),
  } as SharedRows<[string | null, string | null]>,
  actors: new CommittedRefs<[string, string, string, string]>({
    find: db.prepare('SELECT ref FROM audit_actors WHERE actor_id = ? AND actor_type = ? AND actor_name = ? AND source = ?'),
    add: db.prepare('INSERT INTO audit_actors (actor_id, actor_type, actor_name, source) VALUES (?, ?, ?, ?)'),
  }),
  addContext: db.prepare<[number, string | null, string | null]>(
    'INSERT INTO audit_contexts (actor_ref, request_id, detail) VALUES (?, ?, ?)',
  ),
  addEvent: db.prepare<[number, StoredValue, number, number | null, StoredValue, number, StoredValue, StoredValue]>(
    `INSERT INTO audit_trail (seq, at, action_code, patient_ref, subject_id, context_ref, hash, prev_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  addClockStep: db.prepare<[number]>('INSERT INTO audit_clock_steps (seq) VALUES (?)'),
  // The whole trail in seq order, its shared rows looked up apart (iterateAuditEvents keeps those it just read).
  allRows: db.prepare<[], StoredTrailRow>(
    'SELECT seq, at, action_code, patient_ref, subject_id, context_ref, hash, prev_hash FROM audit_trail ORDER BY seq',
  ),
  action: db.prepare<[number], { action: string; subject_type: string }>('SELECT action, subject_type FROM audit_actions WHERE code = ?'),
  patient: db.prepare<[number], { patient_id: string | null; patient_number: string | null }>(
    'SELECT patient_id, patient_number FROM audit_patients WHERE ref = ?',
  ),
  context: db.prepare<[number], SharedContext>(
    `SELECT r.actor_type, r.actor_id, r.actor_name, r.source, c.request_id, c.detail
       FROM audit_contexts c JOIN audit_actors r ON r.ref = c.actor_ref WHERE c.ref = ?`,
  ),
  bySeqs: db.prepare<[string], StoredEventRow>(BY_SEQS_SQL),
  // Where the clock was set back, and the first event at or after a seq: a window's bounds.
  clockSteps: db.prepare<[], { seq: number }>('SELECT seq FROM audit_clock_steps ORDER BY seq'),
  first: db.prepare<[], { seq: number }>('SELECT seq FROM audit_trail ORDER BY seq LIMIT 1'),
  atOrAfter: db.prepare<[number], { seq: number; at: number | string }>(AT_OR_AFTER_SQL),
  patientRefs: db.prepare<[string], { ref: number }>(PATIENT_REFS_SQL),
  actionCodes: db.prepare<[string], { code: number }>(ACTION_CODES_SQL),
  rangeOfPatient: db.prepare<RangeQuery, { seq: number }>(RANGE_SQL.patient),
  rangeOfAction: db.prepare<RangeQuery, { seq: number }>(RANGE_SQL.action),
  rangeOfAll: db.prepare<RangeQuery, { seq: number }>(RANGE_SQL.all),
}));

/** The event a stored row is, `before` being the hash of the event before it (undefined: none). */
function decodeEvent(row: StoredEventRow, before: string | undefined): AuditEventRow {
  return {
    seq: row.seq,
    at: decodeAt(row.at),
    action: row.action,
    patient_id: row.patient_id,
    patient_number: row.patient_number,
    subject_type: row.subject_type,
    subject_id: decodeSubject(row.subject_id, row.patient_id),
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    actor_name: row.actor_name,
    source: row.source,
    request_id: row.request_id,
    detail: row.detail,
    prev_hash: row.prev_hash === null ? (before ?? ZERO_HASH) : decodeHash(row.prev_hash),
    hash: decodeHash(row.hash),
  };
}

/** How a table of shared rows is searched for the row a key names, and added to. */
interface SharedRows<K extends unknown[]> {
  find: { get(...key: K): { ref?: number; code?: number } | undefined };
  add: { run(...key: K): { lastInsertRowid: number | bigint } };
}

/** The ref of the row `key` names, found or else added; `added` says which. */
function findOrAdd<K extends unknown[]>({ find, add }: SharedRows<K>, ...key: K): { ref: number; added: boolean } {
  const found = find.get(...key);
  return found === undefined
    ? { ref: Number(add.run(...key).lastInsertRowid), added: true }
    : { ref: (found.ref ?? found.code)!, added: false };
}

/**
 * The refs of a table's few, recurring rows (actions, actors) that one connection has found,
 * kept so that each event need not look them up again. Only a row this connection did not add
 * itself is kept: found by another statement of the same open transaction, a row it added may
 * still vanish with a rollback (and its ref go to another row), while a row it found without
 * adding was committed (no connection sees another's uncommitted rows) and, the tables being
 * append-only, stays. A row it added is looked up each time; there are few such.
 */
class CommittedRefs<K extends unknown[]> {
  readonly #refs = new Map<string, number>();
  readonly #added = new Set<number>();
  readonly #rows: SharedRows<K>;

  constructor(rows: SharedRows<K>) {
    this.#rows = rows;
  }

  refOf(...key: K): number {
    const name = key.join('\u0000');
    const known = this.#refs.get(name);
    if (known !== undefined) return known;
    const { ref, added } = findOrAdd(this.#rows, ...key);
    if (added) this.#added.add(ref);
    else if (!this.#added.has(ref)) this.#refs.set(name, ref);
    return ref;
  }
}

/**
 * Stores `events` after `head` (the trail's last event, undefined while it is empty), each as
 * compactly as it reads back (audit-codec.ts): the events of one call that share their actor,
 * request id and detail (a search page) share one context; an event's `prev_hash` is stored only
 * where it is not the hash of the event before; an event recorded at an earlier time than the
 * one before it (the clock set back) is listed in audit_clock_steps. Between calls the connection
 * remembers only committed actions and actors (CommittedRefs): a call inside a transaction that
 * rolls back leaves no ref behind.
 */
export function insertAuditEvents(db: Db, head: AuditHead | undefined, events: readonly AuditEventRow[]): void {
  const s = statements(db);
  const contexts = new Map<string, number>();
  let previous = head === undefined ? undefined : { hash: head.hash, time: timeOf(encodeAt(head.at)) };
  for (const event of events) {
    const actionCode = s.actions.refOf(event.action, event.subject_type);
    const patientRef =
      event.patient_id === null && event.patient_number === null ? null : findOrAdd(s.patients, event.patient_id, event.patient_number).ref;
    const contextKey = JSON.stringify([event.actor_type, event.actor_id, event.actor_name, event.source, event.request_id, event.detail]);
    let contextRef = contexts.get(contextKey);
    if (contextRef === undefined) {
      const actorRef = s.actors.refOf(event.actor_id, event.actor_type, event.actor_name, event.source);
      contextRef = Number(s.addContext.run(actorRef, event.request_id, event.detail).lastInsertRowid);
      contexts.set(contextKey, contextRef);
    }
    const at = encodeAt(event.at);
    const prevHash = event.prev_hash === (previous?.hash ?? ZERO_HASH) ? null : encodeHash(event.prev_hash);
    s.addEvent.run(
      event.seq,
      at,
      actionCode,
      patientRef,
      encodeSubject(event.subject_id, event.patient_id),
      contextRef,
      encodeHash(event.hash),
      prevHash,
    );
    const time = timeOf(at);
    if (previous !== undefined && time < previous.time) s.addClockStep.run(event.seq);
    previous = { hash: event.hash, time };
  }
}

/** The last event's seq, hash and time; undefined while the trail is empty. */
export function lastAuditEvent(db: Db): AuditHead | undefined {
  const row = statements(db).last.get();
  return row === undefined ? undefined : { seq: row.seq, hash: decodeHash(row.hash), at: decodeAt(row.at) };
}

/** The hash of the event `seq`, or undefined when the trail holds no such event (a checkpoint's check). */
export function auditEventHash(db: Db, seq: number): string | undefined {
  const row = statements(db).hashAt.get(seq);
  return row === undefined ? undefined : decodeHash(row.hash);
}

/** The patient's number, for the events about it; undefined for an unknown id. */
export function patientNumberOf(db: Db, patientId: string): string | undefined {
  return statements(db).patientNumber.get(patientId)?.patient_number;
}

/** The most patients iterateAuditEvents keeps while it reads (then it forgets them all and reads on). */
const MOST_REMEMBERED_PATIENTS = 20_000;

/**
 * Every event in seq order, one row at a time (a trail may be longer than memory should hold).
 * The rows events share are read once each and kept while they recur: every action, the patients
 * (up to MOST_REMEMBERED_PATIENTS), and the last context, which a page's events follow each other with.
 */
export function* iterateAuditEvents(db: Db): Generator<AuditEventRow> {
  const s = statements(db);
  const actions = new Map<number, { action: string; subject_type: string }>();
  const patients = new Map<number, { patient_id: string | null; patient_number: string | null }>();
  let context: { ref: number; row: SharedContext } | undefined;
  let before: string | undefined;
  for (const row of s.allRows.iterate()) {
    let action = actions.get(row.action_code);
    if (action === undefined) {
      action = s.action.get(row.action_code)!;
      actions.set(row.action_code, action);
    }
    let patient = row.patient_ref === null ? { patient_id: null, patient_number: null } : patients.get(row.patient_ref);
    if (patient === undefined) {
      if (patients.size >= MOST_REMEMBERED_PATIENTS) patients.clear();
      patient = s.patient.get(row.patient_ref!)!;
      patients.set(row.patient_ref!, patient);
    }
    if (context?.ref !== row.context_ref) context = { ref: row.context_ref, row: s.context.get(row.context_ref)! };
    const shared = context.row;
    // Built field by field: spreading the driver's rows into one object costs some 80 µs an event.
    const event: AuditEventRow = {
      seq: row.seq,
      at: decodeAt(row.at),
      action: action.action,
      patient_id: patient.patient_id,
      patient_number: patient.patient_number,
      subject_type: action.subject_type,
      subject_id: decodeSubject(row.subject_id, patient.patient_id),
      actor_type: shared.actor_type,
      actor_id: shared.actor_id,
      actor_name: shared.actor_name,
      source: shared.source,
      request_id: shared.request_id,
      detail: shared.detail,
      prev_hash: row.prev_hash === null ? (before ?? ZERO_HASH) : decodeHash(row.prev_hash),
      hash: decodeHash(row.hash),
    };
    before = event.hash;
    yield event;
  }
}

/**
 * The first seq in [start, end] whose event is at or after `time`, or end + 1 when none is; the
 * events' times must not fall within [start, end] (no clock step inside). A binary search on the
 * primary key: about 2 log2(n) probes, whatever the window.
 */
function firstAtOrAfter(db: Db, start: number, end: number, time: number): number {
  const probe = statements(db).atOrAfter;
  let lo = start;
  let hi = end + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = probe.get(mid);
    if (row === undefined || row.seq > end || timeOf(row.at) >= time) hi = mid;
    else lo = mid + 1;
  }
  const found = probe.get(lo);
  return found === undefined || found.seq > end ? end + 1 : found.seq;
}

/**
 * The seq ranges [lo, hi) of the events after `after` in the window [from, to) (an end null: no
 * bound), in seq order. Between two clock steps the events' times rise with their seq, so each
 * such stretch holds the window's events as one range, found by binary search.
 */
function seqRanges(db: Db, after: number, from: string | null, to: string | null): [number, number][] {
  const s = statements(db);
  if (from === null && to === null) return [[after + 1, Number.MAX_SAFE_INTEGER]];
  const first = s.first.get()?.seq;
  const last = s.last.get()?.seq;
  if (first === undefined || last === undefined) return [];
  const starts = [first, ...s.clockSteps.all().map((step) => step.seq)];
  const ranges: [number, number][] = [];
  starts.forEach((start, i) => {
    const end = (starts[i + 1] ?? last + 1) - 1;
    if (end <= after) return;
    const lo = from === null ? start : firstAtOrAfter(db, start, end, Date.parse(from));
    const hi = to === null ? end + 1 : firstAtOrAfter(db, start, end, Date.parse(to));
    if (Math.max(lo, after + 1) < hi) ranges.push([Math.max(lo, after + 1), hi]);
  });
  return ranges;
}

/**
 * The seqs of the events matching `filter`, at most `filter.limit`, in seq order. Each range of
 * the window is read from the index of the filter: the patient's (one range per row naming it,
 * the actions checked on the row), else each action's, else the primary key; ranges of several
 * index keys are merged by seq. So a page costs reading about one page of each index key,
 * however long the trail and whatever the filters.
 */
function matchingSeqs(db: Db, filter: AuditEventFilter): number[] {
  const s = statements(db);
  const codes = filter.actions === null ? null : s.actionCodes.all(filter.actions).map((row) => row.code);
  if (codes?.length === 0) return [];
  let keys: (number | null)[];
  let statement = s.rangeOfAll;
  if (filter.patientId !== null) {
    keys = s.patientRefs.all(filter.patientId).map((row) => row.ref);
    statement = s.rangeOfPatient;
  } else if (codes !== null) {
    keys = codes;
    statement = s.rangeOfAction;
  } else {
    keys = [null];
  }
  const found: number[] = [];
  for (const [lo, hi] of seqRanges(db, filter.after, filter.from, filter.to)) {
    const limit = filter.limit - found.length;
    const merged = keys
      .flatMap((key) => statement.all({ key, lo, hi, codes: codes === null ? null : JSON.stringify(codes), limit }))
      .map((row) => row.seq)
      .sort((a, b) => a - b)
      .slice(0, limit);
    found.push(...merged);
    if (found.length >= filter.limit) break;
  }
  return found;
}

/** The events matching `filter`, in seq order, at most `filter.limit`. */
export function listAuditEventRows(db: Db, filter: AuditEventFilter): AuditEventRow[] {
  const seqs = matchingSeqs(db, filter);
  if (seqs.length === 0) return [];
  return statements(db)
    .bySeqs.all(JSON.stringify(seqs))
    .map((row) => decodeEvent(row, row.before_hash === null || row.before_hash === undefined ? undefined : decodeHash(row.before_hash)));
}

/**
 * SQLite's plan of each statement a list with these filters runs (test/db/audit-events.test.ts):
 * the patient's rows or the actions' codes, the range of the index, a window's probe, and the
 * page's events by seq.
 */
export function explainAuditList(db: Db, filter: { patientId: boolean; actions: boolean; window: boolean }): string[] {
  const plan = (sql: string, params: unknown[]) =>
    db
      .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((row) => row.detail);
  const range = filter.patientId ? RANGE_SQL.patient : filter.actions ? RANGE_SQL.action : RANGE_SQL.all;
  return [
    ...(filter.patientId ? plan(PATIENT_REFS_SQL, ['patient']) : []),
    ...(filter.actions ? plan(ACTION_CODES_SQL, ['["patient.read"]']) : []),
    ...plan(range, [{ key: 1, lo: 1, hi: 2, codes: '[1]', limit: 1 }]),
    ...(filter.window ? plan(AT_OR_AFTER_SQL, [1]) : []),
    ...plan(BY_SEQS_SQL, ['[1]']),
  ];
}

/** The triggers that refuse UPDATE and DELETE on the trail's tables and its view (schema.sql). */
const AUDIT_TRIGGERS = [
  ...['audit_trail', 'audit_actions', 'audit_patients', 'audit_actors', 'audit_contexts', 'audit_clock_steps'].flatMap((table) => [
    `${table}_append_only_on_update`,
    `${table}_append_only_on_delete`,
  ]),
  'audit_events_are_append_only_on_update',
  'audit_events_are_append_only_on_delete',
] as const;

/** Those of AUDIT_TRIGGERS the database does not have (someone dropped them). */
export function missingAuditTriggers(db: Db): string[] {
  const present = new Set(
    statements(db)
      .triggers.all()
      .map((row) => row.name),
  );
  return AUDIT_TRIGGERS.filter((name) => !present.has(name));
}

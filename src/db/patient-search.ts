import { preparedFor, type Db } from './open-database.js';

/** A half-open range of terms: [from, to). An empty range (from = to) matches nothing. */
export interface TermRange {
  from: string;
  to: string;
}

/**
 * What one word of a query matches: a term in any of `ranges` (at least one), the patient
 * numbered `seq`, or a patient whose phone or mobile holds the run `digits`.
 */
export interface WordLookup {
  ranges: readonly TermRange[];
  seq: number | null;
  digits: string | null;
}

/** A patient as a search lists it (PatientSummary, clinic-api-1.1.md), with its sort key. */
export interface PatientSummaryRow {
  seq: number;
  id: string;
  patient_number: string;
  first_name: string;
  last_name: string;
  date_of_birth: string | null;
  email: string | null;
  mobile: string | null;
  is_active: number;
}

/** Where a page of the name order starts: strictly after this (last_name, first_name, seq). */
export interface PatientCursor {
  last_name: string;
  first_name: string;
  seq: number;
}

/** Before every patient: seq starts at 1 and every string sorts at or after ''. */
export const BEFORE_FIRST_PATIENT: PatientCursor = { last_name: '', first_name: '', seq: 0 };

const SUMMARY_COLUMNS = 'p.seq, p.id, p.patient_number, p.first_name, p.last_name, p.date_of_birth, p.email, p.mobile, p.is_active';
const AFTER_CURSOR = '(p.last_name, p.first_name, p.seq) > (@last_name, @first_name, @seq)';
const BY_NAME = 'ORDER BY p.last_name, p.first_name, p.seq LIMIT @limit';

/** The term ranges of query word `word` over the terms table as `table`: `(t.term >= ... AND t.term < ...) OR ...`. */
function rangesSql(lookup: WordLookup, word: number, table: string): string {
  return lookup.ranges.map((_, r) => `(${table}.term >= @w${word}r${r}from AND ${table}.term < @w${word}r${r}to)`).join(' OR ');
}

/**
 * The search for `lookups` (the domain puts the most telling word first). The first word's
 * matches come from the primary key with the names beside them, so they are put in name order
 * and cut to a page without reading a patients row; each other word is checked per match on the
 * (patient_seq, term) index; only the page's rows are then read from patients. Only the ranges
 * a word can match are in the SQL: every range more costs a merge of index scans.
 */
function searchSql(lookups: readonly WordLookup[]): string {
  const [first, ...rest] = lookups as [WordLookup, ...WordLookup[]];
  const byNumber = first.seq === null ? '' : 'UNION SELECT last_name, first_name, seq FROM patients WHERE seq = @w0seq';
  // Phone digits are looked for inside each patient's digits: a scan of a narrow table (see schema.sql).
  const byPhone =
    first.digits === null
      ? ''
      : `UNION SELECT p.last_name, p.first_name, p.seq FROM patient_phone_digits d CROSS JOIN patients p ON p.seq = d.patient_seq
          WHERE instr(d.digits, @w0digits) > 0`;
  const others = rest
    .map((lookup, i) => {
      const word = i + 1;
      const matches = [
        `EXISTS (SELECT 1 FROM patient_search_terms t WHERE t.patient_seq = hit.seq AND (${rangesSql(lookup, word, 't')}))`,
        ...(lookup.seq === null ? [] : [`hit.seq = @w${word}seq`]),
        ...(lookup.digits === null
          ? []
          : [`EXISTS (SELECT 1 FROM patient_phone_digits d WHERE d.patient_seq = hit.seq AND instr(d.digits, @w${word}digits) > 0)`]),
      ];
      return `AND (${matches.join(' OR ')})`;
    })
    .join('\n');
  return `WITH hit (last_name, first_name, seq) AS (
            SELECT DISTINCT last_name, first_name, patient_seq FROM patient_search_terms f WHERE ${rangesSql(first, 0, 'f')} ${byNumber} ${byPhone})
          SELECT ${SUMMARY_COLUMNS} FROM (
            SELECT hit.seq, hit.last_name, hit.first_name FROM hit
             WHERE (hit.last_name, hit.first_name, hit.seq) > (@last_name, @first_name, @seq) ${others}
             ORDER BY hit.last_name, hit.first_name, hit.seq LIMIT @limit) AS page
          CROSS JOIN patients p ON p.seq = page.seq
          ORDER BY page.last_name, page.first_name, page.seq`;
}

/** The statements of searchSql are told apart by the shape of each word: how many ranges, and whether a number. */
const shapeOf = (lookups: readonly WordLookup[]) =>
  lookups.map((lookup) => `${lookup.ranges.length}${lookup.seq === null ? '' : '#'}${lookup.digits === null ? '' : 't'}`).join(' ');

/** Past this many shapes the cache starts again: a client could otherwise make it grow without end. */
const MAX_CACHED_SEARCHES = 256;

/** What a patient's search terms are stored with. */
export interface SearchedPatient {
  seq: number;
  last_name: string;
  first_name: string;
}

const statements = preparedFor((db) => ({
  insertTerm: db.prepare<[string, string, string, number]>(
    'INSERT OR IGNORE INTO patient_search_terms (term, last_name, first_name, patient_seq) VALUES (?, ?, ?, ?)',
  ),
  insertDigits: db.prepare<[number, string]>('INSERT INTO patient_phone_digits (patient_seq, digits) VALUES (?, ?)'),
  // Without a query: a range of the name index, in order.
  byName: db.prepare<PatientCursor & { limit: number }, PatientSummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM patients p WHERE ${AFTER_CURSOR} ${BY_NAME}`,
  ),
  // One statement per shape of query (shapeOf), prepared when first needed.
  search: new Map<string, ReturnType<Db['prepare']>>(),
}));

/**
 * Makes a patient findable: its `terms` (patientSearchTerms) and its phone digits
 * (patientPhoneDigits); call in the transaction that inserts it.
 */
export function insertPatientSearchTerms(db: Db, patient: SearchedPatient, terms: readonly string[], phoneDigits: string | null): void {
  const { insertTerm, insertDigits } = statements(db);
  for (const term of terms) insertTerm.run(term, patient.last_name, patient.first_name, patient.seq);
  if (phoneDigits !== null) insertDigits.run(patient.seq, phoneDigits);
}

/** Parameters of searchSql for `lookups`, named as it names them. */
function searchParameters(lookups: readonly WordLookup[], after: PatientCursor, limit: number): Record<string, unknown> {
  const parameters: Record<string, unknown> = { ...after, limit };
  lookups.forEach((lookup, word) => {
    lookup.ranges.forEach((range, r) => {
      parameters[`w${word}r${r}from`] = range.from;
      parameters[`w${word}r${r}to`] = range.to;
    });
    if (lookup.seq !== null) parameters[`w${word}seq`] = lookup.seq;
    if (lookup.digits !== null) parameters[`w${word}digits`] = lookup.digits;
  });
  return parameters;
}

/**
 * Up to `limit` patients after `after` in name order that match every lookup (all patients when
 * `lookups` is empty).
 */
export function searchPatientRows(db: Db, lookups: readonly WordLookup[], after: PatientCursor, limit: number): PatientSummaryRow[] {
  const prepared = statements(db);
  if (lookups.length === 0) return prepared.byName.all({ ...after, limit });
  const shape = shapeOf(lookups);
  let search = prepared.search.get(shape);
  if (search === undefined) {
    if (prepared.search.size >= MAX_CACHED_SEARCHES) prepared.search.clear();
    search = db.prepare(searchSql(lookups));
    prepared.search.set(shape, search);
  }
  return search.all(searchParameters(lookups, after, limit)) as PatientSummaryRow[];
}

/** SQLite's plan for a search of `lookups` (none: the plain name list), one line per step. */
export function explainPatientSearch(db: Db, lookups: readonly WordLookup[]): string[] {
  const sql = lookups.length === 0 ? `SELECT ${SUMMARY_COLUMNS} FROM patients p WHERE ${AFTER_CURSOR} ${BY_NAME}` : searchSql(lookups);
  return db
    .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(searchParameters(lookups, BEFORE_FIRST_PATIENT, 1))
    .map((step) => step.detail);
}

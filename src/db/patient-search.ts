import type { WordLookup } from '../fields/search-terms.js';
import { preparedFor, type Db } from './open-database.js';

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
/** Every patient by name, a page from the cursor; an erased one is in no list (1.3.0). */
const NAME_LIST_SQL = `SELECT ${SUMMARY_COLUMNS} FROM patients p WHERE ${AFTER_CURSOR} AND p.erased_at IS NULL ${BY_NAME}`;

/** The term ranges of query word `word` over the terms table as `table`: `(t.term >= ... AND t.term < ...) OR ...`. */
function rangesSql(lookup: WordLookup, word: number, table: string): string {
  return lookup.ranges.map((_, r) => `(${table}.term >= @w${word}r${r}from AND ${table}.term < @w${word}r${r}to)`).join(' OR ');
}

/**
 * Whether the patient whose seq is `seq` (an SQL expression) matches query word `word`: one of
 * its terms in the word's ranges (one short range of the (patient_seq, term) index), its
 * number, or its phone digits.
 */
function wordCheckSql(lookup: WordLookup, word: number, seq: string): string {
  const matches = [
    `EXISTS (SELECT 1 FROM patient_search_terms t WHERE t.patient_seq = ${seq} AND (${rangesSql(lookup, word, 't')}))`,
    ...(lookup.seq === null ? [] : [`${seq} = @w${word}seq`]),
    ...(lookup.digits === null
      ? []
      : [`EXISTS (SELECT 1 FROM patient_phone_digits d WHERE d.patient_seq = ${seq} AND instr(d.digits, @w${word}digits) > 0)`]),
  ];
  return `(${matches.join(' OR ')})`;
}

/**
 * The search for `lookups` driven by the first word's matches (searchPatientRows puts the most
 * telling word first). They come from the primary key with the names beside them, so they are
 * put in name order and cut to a page without reading a patients row; each other word is
 * checked per match on the (patient_seq, term) index; only the page's rows are then read from
 * patients. Only the ranges a word can match are in the SQL: every range more costs a merge of
 * index scans. Its cost grows with the first word's matches, all of which are sorted.
 */
function searchSql(lookups: readonly WordLookup[]): string {
  const [first, ...rest] = lookups as [WordLookup, ...WordLookup[]];
  const byNumber =
    first.seq === null ? '' : 'UNION SELECT last_name, first_name, seq FROM patients WHERE seq = @w0seq AND erased_at IS NULL';
  // Phone digits are looked for inside each patient's digits: a scan of a narrow table (see schema.sql).
  const byPhone =
    first.digits === null
      ? ''
      : `UNION SELECT p.last_name, p.first_name, p.seq FROM patient_phone_digits d CROSS JOIN patients p ON p.seq = d.patient_seq
          WHERE instr(d.digits, @w0digits) > 0`;
  const others = rest.map((lookup, i) => `AND ${wordCheckSql(lookup, i + 1, 'hit.seq')}`).join('\n');
  return `WITH hit (last_name, first_name, seq) AS (
            SELECT DISTINCT last_name, first_name, patient_seq FROM patient_search_terms f WHERE ${rangesSql(first, 0, 'f')} ${byNumber} ${byPhone})
          SELECT ${SUMMARY_COLUMNS} FROM (
            SELECT hit.seq, hit.last_name, hit.first_name FROM hit
             WHERE (hit.last_name, hit.first_name, hit.seq) > (@last_name, @first_name, @seq) ${others}
             ORDER BY hit.last_name, hit.first_name, hit.seq LIMIT @limit) AS page
          CROSS JOIN patients p ON p.seq = page.seq
          WHERE p.erased_at IS NULL
          ORDER BY page.last_name, page.first_name, page.seq`;
}

/**
 * The search for `lookups` that walks the name index from the cursor, at most @walk patients,
 * and checks every word on each: no sort, and a cost that grows with the patients walked, not
 * with the clinic. Used when every word matches many patients, so that a page fills early.
 */
function walkSql(lookups: readonly WordLookup[]): string {
  const checks = lookups.map((lookup, word) => wordCheckSql(lookup, word, 'walk.seq')).join(' AND ');
  return `SELECT ${SUMMARY_COLUMNS} FROM (
            SELECT p.seq, p.last_name, p.first_name FROM patients p WHERE ${AFTER_CURSOR}
             ORDER BY p.last_name, p.first_name, p.seq LIMIT @walk) AS walk
          CROSS JOIN patients p ON p.seq = walk.seq
          WHERE ${checks} AND p.erased_at IS NULL
          ORDER BY walk.last_name, walk.first_name, walk.seq LIMIT @limit`;
}

/** How many terms lie in the ranges of word 0, counted up to @cap: a bounded guess at how many patients it matches. */
const countSql = (lookup: WordLookup) =>
  `SELECT count(*) AS n FROM (SELECT 1 FROM patient_search_terms f WHERE ${rangesSql(lookup, 0, 'f')} LIMIT @cap)`;

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
  deleteTerms: db.prepare<[number]>('DELETE FROM patient_search_terms WHERE patient_seq = ?'),
  deleteDigits: db.prepare<[number]>('DELETE FROM patient_phone_digits WHERE patient_seq = ?'),
  // Without a query: a range of the name index, in order.
  // An erased patient is in no list (1.3.0, "Restriction"); a search finds it by no word, as its terms are gone.
  byName: db.prepare<PatientCursor & { limit: number }, PatientSummaryRow>(NAME_LIST_SQL),
  // Where a walk of @walk patients from the cursor ends: its last patient, if there are that many.
  walkEnd: db.prepare<PatientCursor & { walk: number }, PatientCursor>(
    `SELECT p.last_name, p.first_name, p.seq FROM patients p WHERE ${AFTER_CURSOR} ORDER BY p.last_name, p.first_name, p.seq LIMIT 1 OFFSET @walk - 1`,
  ),
  // The patients of one term (`d:1985-03-02`): an equality on the primary key's first column.
  byTerm: db.prepare<[string], PatientSummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM patient_search_terms t CROSS JOIN patients p ON p.seq = t.patient_seq WHERE t.term = ? AND p.erased_at IS NULL ORDER BY p.seq`,
  ),
  // One statement per plan and shape of query (shapeOf), prepared when first needed.
  search: new Map<string, ReturnType<Db['prepare']>>(),
}));

/** Every patient with the search term `term` (patientSearchTerms: `d:1985-03-02`), oldest first. */
export function findPatientsWithTerm(db: Db, term: string): PatientSummaryRow[] {
  return statements(db).byTerm.all(term);
}

/**
 * Makes a patient findable: its `terms` (patientSearchTerms) and its phone digits
 * (patientPhoneDigits); call in the transaction that inserts it.
 */
export function insertPatientSearchTerms(db: Db, patient: SearchedPatient, terms: readonly string[], phoneDigits: string | null): void {
  const { insertTerm, insertDigits } = statements(db);
  for (const term of terms) insertTerm.run(term, patient.last_name, patient.first_name, patient.seq);
  if (phoneDigits !== null) insertDigits.run(patient.seq, phoneDigits);
}

/** Makes a changed patient findable by what it is now: its old terms and digits go, its new ones come. */
export function replacePatientSearchTerms(db: Db, patient: SearchedPatient, terms: readonly string[], phoneDigits: string | null): void {
  const { deleteTerms, deleteDigits } = statements(db);
  deleteTerms.run(patient.seq);
  deleteDigits.run(patient.seq);
  insertPatientSearchTerms(db, patient, terms, phoneDigits);
}

/** Parameters of searchSql for `lookups`, named as it names them. */
function searchParameters(lookups: readonly WordLookup[], after: PatientCursor, limit: number, cap?: number): Record<string, unknown> {
  const parameters: Record<string, unknown> = cap === undefined ? { ...after, limit } : { cap };
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
 * A word that matches fewer terms than this drives the search: sorting and checking that many
 * matches costs a few milliseconds whatever the clinic's size. (Measured: bench/patient-search.ts.)
 */
const FEW_MATCHES = 2_000;

/**
 * How many patients a walk of the name index reads before it gives up on filling the page (a
 * few milliseconds). A word whose matches are spread over the names fills a page early (`m`:
 * 27 % of patients, 1 ms); words that meet rarely, or only in one stretch of last names, do not,
 * and then the walk was wasted: a longer one would waste more.
 */
const WALK_PATIENTS = 2_000;

/** The statement of `plan` for `lookups`, prepared once per shape. */
function statementFor(db: Db, plan: 'search' | 'walk' | 'count', lookups: readonly WordLookup[]): ReturnType<Db['prepare']> {
  const cache = statements(db).search;
  const key = `${plan} ${shapeOf(lookups)}`;
  let statement = cache.get(key);
  if (statement === undefined) {
    if (cache.size >= MAX_CACHED_SEARCHES) cache.clear();
    statement = db.prepare(plan === 'search' ? searchSql(lookups) : plan === 'walk' ? walkSql(lookups) : countSql(lookups[0]!));
    cache.set(key, statement);
  }
  return statement;
}

/** The index of the first of `lookups` that is no run of phone digits and has fewer than FEW_MATCHES terms, or -1. */
function firstWithFewMatches(db: Db, lookups: readonly WordLookup[]): number {
  return lookups.findIndex((lookup) => {
    if (lookup.digits !== null) return false;
    const count = statementFor(db, 'count', [lookup]).get(searchParameters([lookup], BEFORE_FIRST_PATIENT, 0, FEW_MATCHES));
    return (count as { n: number }).n < FEW_MATCHES;
  });
}

/**
 * Up to `limit` patients after `after` in name order that match every lookup (all patients when
 * `lookups` is empty). `lookups` come most telling first, runs of phone digits last. A search
 * is driven by the first word that matches few patients (at most FEW_MATCHES terms, counted no
 * further). When every word matches many, a page fills early in name order: the name index is
 * walked from the cursor for WALK_PATIENTS patients, and only if that fills no page is the rest
 * read through the matches of a run of phone digits, else of the first word: the one case whose
 * cost still grows with the clinic (common words that rarely meet, docs/design-choices.md). A run of
 * phone digits reads the digits table whole (schema.sql).
 */
export function searchPatientRows(db: Db, lookups: readonly WordLookup[], after: PatientCursor, limit: number): PatientSummaryRow[] {
  if (lookups.length === 0) return statements(db).byName.all({ ...after, limit });
  const search = (ordered: readonly WordLookup[], from: PatientCursor, count: number) =>
    statementFor(db, 'search', ordered).all(searchParameters(ordered, from, count)) as PatientSummaryRow[];
  if (lookups.every((lookup) => lookup.digits !== null)) return search(lookups, after, limit);
  const few = firstWithFewMatches(db, lookups);
  if (few >= 0) return search([lookups[few]!, ...lookups.filter((_, i) => i !== few)], after, limit);
  const walked = statementFor(db, 'walk', lookups).all({
    ...searchParameters(lookups, after, limit),
    walk: WALK_PATIENTS,
  }) as PatientSummaryRow[];
  const walkEnd = statements(db).walkEnd.get({ ...after, walk: WALK_PATIENTS });
  if (walked.length === limit || walkEnd === undefined) return walked;
  // Every name word is common: a run of phone digits, if any, narrows more for less (a read of
  // the narrow digits table, about 10 ms at 100,000 patients, against 100 ms and more).
  const phone = lookups.findIndex((lookup) => lookup.digits !== null);
  const ordered = phone < 0 ? lookups : [lookups[phone]!, ...lookups.filter((_, i) => i !== phone)];
  return [...walked, ...search(ordered, walkEnd, limit - walked.length)];
}

/** SQLite's plan for a search of `lookups` (none: the plain name list), one line per step. */
export function explainPatientSearch(db: Db, lookups: readonly WordLookup[]): string[] {
  const sql = lookups.length === 0 ? NAME_LIST_SQL : searchSql(lookups);
  return db
    .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(searchParameters(lookups, BEFORE_FIRST_PATIENT, 1))
    .map((step) => step.detail);
}

/** SQLite's plan for the walk of the name index that a search of common `lookups` takes first, one line per step. */
export function explainPatientWalk(db: Db, lookups: readonly WordLookup[]): string[] {
  return db
    .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${walkSql(lookups)}`)
    .all({ ...searchParameters(lookups, BEFORE_FIRST_PATIENT, 1), walk: WALK_PATIENTS })
    .map((step) => step.detail);
}

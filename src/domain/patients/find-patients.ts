import type { Db } from '../../db/open-database.js';
import { BEFORE_FIRST_PATIENT, searchPatientRows, type PatientCursor, type PatientSummaryRow } from '../../db/patient-search.js';
import type { ResponseOf, ValuesOf } from '../../fields/field-spec.js';
import { pageQueryFields } from '../../fields/page-fields.js';
import { MAX_SEARCH_WORDS, PATIENT_SEARCH_FIELDS, type PATIENT_SUMMARY_FIELDS } from '../../fields/patient-fields.js';
import { NOTHING_OWED, outstandingBalances } from '../invoices/outstanding-balance.js';
import { cursorIssues, decodeCursor, DEFAULT_PAGE_LIMIT, pageOf, type Page } from '../pagination.js';
import type { ValidationIssue } from '../../errors.js';
import { problems } from '../validation/problems.js';
import { defineUseCase, performUseCase } from '../use-case.js';
import { issue } from '../validation/validate.js';
import { presentBalance, type PatientBalance } from './present-patient.js';
import { binaryOrder, narrowingLookups, phoneNumberWord, queryWords, type WordLookup } from '../../fields/search-terms.js';
import { balanceFor, ROLE_ROWS } from '../people/roles.js';

/** PatientSummary (clinic-api-1.1.md). */
export type PatientSummary = ResponseOf<typeof PATIENT_SUMMARY_FIELDS>;

/** The query of GET /patients: `q`, `limit`, `after`. */
export const PATIENT_LIST_QUERY_FIELDS = [...PATIENT_SEARCH_FIELDS, ...pageQueryFields(`${DEFAULT_PAGE_LIMIT}`)] as const;

const CURSOR = 'patients';
const CURSOR_SHAPE = ['string', 'string', 'number'] as const;

function presentSummary(row: PatientSummaryRow, balance: PatientBalance): PatientSummary {
  const { outstanding_balances, ...oneAmount } = presentBalance(balance);
  return {
    id: row.id,
    patient_number: row.patient_number,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
    email: row.email,
    mobile: row.mobile,
    is_active: row.is_active === 1,
    ...oneAmount,
    // After the fields of 1.1.0.
    outstanding_balances,
  };
}

/** Words that can be phone digits after the others, then the longest first. */
function drivingOrder(a: WordLookup, b: WordLookup): number {
  const phone = (lookup: WordLookup) => (lookup.digits === null ? 0 : 1);
  const length = (lookup: WordLookup) => lookup.ranges[0]?.from.length ?? 0;
  return phone(a) - phone(b) || length(b) - length(a);
}

/**
 * The issue of a `q` of more than MAX_SEARCH_WORDS words (a bound on what one search may cost),
 * as a list to report with the query's other issues; checked, as a pydantic validator after
 * the type's, only when `schemaIssues` has none at `q`.
 */
function wordCountIssues(query: unknown, schemaIssues: readonly ValidationIssue[]): ValidationIssue[] {
  const q = (query as Record<string, unknown> | null)?.q;
  if (typeof q !== 'string' || schemaIssues.some((found) => found.loc[1] === 'q')) return [];
  if (queryWords(q).length <= MAX_SEARCH_WORDS) return [];
  return [issue(['query', 'q'], problems.valueError(`a search may hold at most ${MAX_SEARCH_WORDS} words`), q)];
}

/** Two lists in the name order (last name, first name, number) as one, each patient once. */
function mergedInNameOrder(a: readonly PatientSummaryRow[], b: readonly PatientSummaryRow[]): PatientSummaryRow[] {
  const bySeq = new Map([...a, ...b].map((row) => [row.seq, row]));
  return [...bySeq.values()].sort(
    (x, y) => binaryOrder(x.last_name, y.last_name) || binaryOrder(x.first_name, y.first_name) || x.seq - y.seq,
  );
}

/** Where the page after `cursor` starts in the name order. */
function cursorPosition(cursor: string): PatientCursor {
  const [last_name, first_name, seq] = decodeCursor(cursor, CURSOR, CURSOR_SHAPE) as [string, string, number];
  return { last_name, first_name, seq };
}

/**
 * Patients whose every query word matches (search-terms.ts says how), by last name, first name
 * and number, one page at a time (GET /patients, `clinic patient find`). Without `q`, every
 * patient in that order.
 */
export const FIND_PATIENTS = defineUseCase({
  roles: ROLE_ROWS.readPatients,
  summary: 'Find patients by name, number, date of birth, email or phone',
  input: { query: PATIENT_LIST_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  moreIssues: ({ query }, fieldIssues) => [...wordCountIssues(query, fieldIssues), ...cursorIssues(query, CURSOR, CURSOR_SHAPE)],
  run: (db, { query }, caller) => {
    const page = findPatientPage(db, query);
    return { ...page, items: page.items.map((item) => balanceFor(item, caller.roles)) };
  },
  // One event per patient on the page returned (as IHE BALP records a query), with what was searched for.
  audit: (page, { query }) =>
    page.items.map((patient) => ({
      action: 'patient.search',
      patientId: patient.id,
      patientNumber: patient.patient_number,
      subjectId: null,
      detail: { q: query.q ?? null },
    })),
});

function findPatientPage(db: Db, values: ValuesOf<typeof PATIENT_LIST_QUERY_FIELDS>): Page<PatientSummary> {
  const limit = values.limit ?? DEFAULT_PAGE_LIMIT;
  const after = values.after === undefined ? BEFORE_FIRST_PATIENT : cursorPosition(values.after);
  // The word that narrows most comes first, and the others are checked per match: the longest,
  // but a run of phone digits last (it is found by reading every patient's numbers). Words that
  // add nothing to the others are not checked at all.
  const lookups = values.q === undefined ? [] : narrowingLookups(queryWords(values.q)).sort(drivingOrder);
  const rows = searchPatientRows(db, lookups, after, limit + 1);
  const phone = values.q === undefined ? undefined : phoneNumberWord(values.q);
  if (phone !== undefined) {
    // Both readings give rows in the name order after the same cursor: merged, they are a page of either's.
    const asPhone = searchPatientRows(db, narrowingLookups([phone]), after, limit + 1);
    rows.splice(0, rows.length, ...mergedInNameOrder(rows, asPhone).slice(0, limit + 1));
  }
  // What the page's patients owe, in one statement rather than one per patient.
  const balances = outstandingBalances(
    db,
    rows.slice(0, limit).map((row) => row.id),
  );
  return pageOf(
    rows,
    limit,
    CURSOR,
    (row) => [row.last_name, row.first_name, row.seq],
    (row) => presentSummary(row, balances.get(row.id) ?? NOTHING_OWED),
  );
}

/** FIND_PATIENTS on a connection of its own. */
export function findPatients(db: Db, query: unknown): Page<PatientSummary> {
  return performUseCase(FIND_PATIENTS, db, { query }, { source: 'cli', actor: null });
}

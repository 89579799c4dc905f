import type { Db } from '../../db/open-database.js';
import {
  BEFORE_FIRST_PATIENT,
  searchPatientRows,
  type PatientCursor,
  type PatientSummaryRow,
  type WordLookup,
} from '../../db/patient-search.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { pageQueryFields } from '../../fields/page-fields.js';
import { PATIENT_SEARCH_FIELDS, type PATIENT_SUMMARY_FIELDS } from '../../fields/patient-fields.js';
import { outstandingBalance } from '../invoices/outstanding-balance.js';
import { cursorIssues, decodeCursor, DEFAULT_PAGE_LIMIT, pageOf, type Page } from '../pagination.js';
import { fieldsValidator, throwIfIssues } from '../validation/validate.js';
import { balanceText } from './present-patient.js';
import { queryWords, wordLookup } from '../../db/search-terms.js';

/** PatientSummary (clinic-api-1.1.md). */
export type PatientSummary = ResponseOf<typeof PATIENT_SUMMARY_FIELDS>;

/** The query of GET /patients: `q`, `limit`, `after`. */
export const PATIENT_LIST_QUERY_FIELDS = [...PATIENT_SEARCH_FIELDS, ...pageQueryFields(`${DEFAULT_PAGE_LIMIT}`)] as const;

const listQuery = fieldsValidator(PATIENT_LIST_QUERY_FIELDS, 'query');
const CURSOR = 'patients';
const CURSOR_SHAPE = ['string', 'string', 'number'] as const;

function presentSummary(db: Db, row: PatientSummaryRow): PatientSummary {
  const balance = outstandingBalance(db, row.id);
  return {
    id: row.id,
    patient_number: row.patient_number,
    first_name: row.first_name,
    last_name: row.last_name,
    date_of_birth: row.date_of_birth,
    email: row.email,
    mobile: row.mobile,
    is_active: row.is_active === 1,
    outstanding_balance: balanceText(balance.balanceCents),
    outstanding_currency: balance.currency,
  };
}

/** Words that can be phone digits after the others, then the longest first. */
function drivingOrder(a: WordLookup, b: WordLookup): number {
  const phone = (lookup: WordLookup) => (lookup.digits === null ? 0 : 1);
  const length = (lookup: WordLookup) => lookup.ranges[0]?.from.length ?? 0;
  return phone(a) - phone(b) || length(b) - length(a);
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
export function findPatients(db: Db, query: unknown): Page<PatientSummary> {
  throwIfIssues(listQuery.issues(query), cursorIssues(query, CURSOR, CURSOR_SHAPE));
  const values = listQuery.normalize(query, { timeZone: 'UTC' });
  const limit = values.limit ?? DEFAULT_PAGE_LIMIT;
  const after = values.after === undefined ? BEFORE_FIRST_PATIENT : cursorPosition(values.after);
  // The word that narrows most comes first, and the others are checked per match: the longest,
  // but a run of phone digits last (it is found by reading every patient's numbers).
  const lookups = values.q === undefined ? [] : queryWords(values.q).map(wordLookup).sort(drivingOrder);
  const rows = searchPatientRows(db, lookups, after, limit + 1);
  return pageOf(
    rows,
    limit,
    CURSOR,
    (row) => [row.last_name, row.first_name, row.seq],
    (row) => presentSummary(db, row),
  );
}

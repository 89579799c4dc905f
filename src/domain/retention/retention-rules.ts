import type { Db } from '../../db/open-database.js';
import { readSetting, writeSetting } from '../../db/settings.js';
import { ValidationError } from '../../errors.js';
import { problems } from '../validation/problems.js';
import { issue } from '../validation/validate.js';

/**
 * How long the clinic must keep what a patient's erasure cannot take at once (interface 1.3.0,
 * "Retention"): medical records and billing records under the law of Austria or Germany, and the
 * audit trail, which proves who saw and changed what. `clinic settings set-retention` chooses the
 * country's preset and how many years records are kept (10, or up to 30 where chambers advise it).
 */

export const RETENTION_COUNTRIES = ['AT', 'DE'] as const;
export type RetentionCountry = (typeof RETENTION_COUNTRIES)[number];

export const MIN_RECORDS_YEARS = 10;
export const MAX_RECORDS_YEARS = 30;

/** One rule of a preset, as `settings set-retention --json` and the erasure name it. */
export interface RetentionRule {
  id: string;
  covers: string;
  /** Years kept; null for the audit trail, kept as the trail is. */
  years: number | null;
  /** From when the years count; null for the audit trail. */
  from: string | null;
  reference: string;
}

/** The clinic's retention: its country's preset with the records' years. */
export interface Retention {
  country: RetentionCountry;
  records_years: number;
  rules: RetentionRule[];
}

const RECORDS_COVER = 'held appointments, documents not of type invoices, kept fields';
const BILLING_COVER = 'an invoice with its payments and refunds; documents of type invoices';
const END_OF_YEAR = 'end of the calendar year of the latest';

/** The rules of a country's preset (the specification's table, in its order). */
export function retentionRules(country: RetentionCountry, recordsYears: number): RetentionRule[] {
  const audit: RetentionRule = { id: 'AUDIT', covers: 'the audit trail', years: null, from: null, reference: 'Art. 17 (3) (b), (e) GDPR' };
  if (country === 'AT') {
    return [
      { id: 'AT-RECORDS', covers: RECORDS_COVER, years: recordsYears, from: "each entry's date", reference: '§ 51 ÄrzteG 1998' },
      { id: 'AT-BILLING', covers: BILLING_COVER, years: 7, from: END_OF_YEAR, reference: '§ 132 (1) BAO' },
      audit,
    ];
  }
  return [
    {
      id: 'DE-RECORDS',
      covers: RECORDS_COVER,
      years: recordsYears,
      from: 'end of treatment: last held appointment or record document',
      reference: '§ 630f (3) BGB, § 10 (3) MBO-Ä',
    },
    { id: 'DE-BILLING', covers: BILLING_COVER, years: 8, from: END_OF_YEAR, reference: '§ 147 (3) AO, § 14b UStG' },
    audit,
  ];
}

const SETTING_KEY = 'retention';

/** The clinic's retention, or null before `settings set-retention` (no erasure until then). */
export function clinicRetention(db: Db): Retention | null {
  const stored = readSetting(db, SETTING_KEY);
  if (stored === undefined) return null;
  const { country, records_years } = JSON.parse(stored) as { country: RetentionCountry; records_years: number };
  return { country, records_years, rules: retentionRules(country, records_years) };
}

/** A country typed in any case, as a preset's; a ValidationError at `country` for any other. */
function retentionCountryOf(typed: string): RetentionCountry {
  const country = typed.trim().toUpperCase();
  if ((RETENTION_COUNTRIES as readonly string[]).includes(country)) return country as RetentionCountry;
  throw new ValidationError([
    issue(
      ['body', 'country'],
      problems.valueError(
        `retention presets exist for ${RETENTION_COUNTRIES.join(' and ')} (Austria, Germany), not for ${JSON.stringify(typed)}`,
      ),
      typed,
    ),
  ]);
}

/** Sets the preset and the records' years (default 10); whether that changed anything. */
export function setClinicRetention(db: Db, typedCountry: string, recordsYears: number | undefined): Retention & { changed: boolean } {
  const country = retentionCountryOf(typedCountry);
  const years = recordsYears ?? MIN_RECORDS_YEARS;
  const before = clinicRetention(db);
  writeSetting(db, SETTING_KEY, JSON.stringify({ country, records_years: years }));
  return {
    country,
    records_years: years,
    rules: retentionRules(country, years),
    changed: before?.country !== country || before.records_years !== years,
  };
}

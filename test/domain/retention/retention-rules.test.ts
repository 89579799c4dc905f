// The retention presets `clinic settings set-retention` chooses, rule by rule (clinic-api-1.3.md, "Retention").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../../src/errors.js';
import { clinicRetention, retentionRules, setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';

const RECORDS_COVER = 'held appointments, documents not of type invoices, kept fields';
const BILLING_COVER = 'an invoice with its payments and refunds; documents of type invoices';
const END_OF_YEAR = 'end of the calendar year of the latest';
const AUDIT = { id: 'AUDIT', covers: 'the audit trail', years: null, from: null, reference: 'Art. 17 (3) (b), (e) GDPR' };

describe('retention rules', () => {
  const data = useTestDatabase({ each: true });

  it("are Austria's as the specification's table gives them: records N years from each entry, billing 7 from the year's end", () => {
    assert.deepEqual(retentionRules('AT', 10), [
      { id: 'AT-RECORDS', covers: RECORDS_COVER, years: 10, from: "each entry's date", reference: '§ 51 ÄrzteG 1998' },
      { id: 'AT-BILLING', covers: BILLING_COVER, years: 7, from: END_OF_YEAR, reference: '§ 132 (1) BAO' },
      AUDIT,
    ]);
  });

  it("are Germany's: records N years from the end of treatment, billing 8 from the year's end", () => {
    assert.deepEqual(retentionRules('DE', 10), [
      {
        id: 'DE-RECORDS',
        covers: RECORDS_COVER,
        years: 10,
        from: 'end of treatment: last held appointment or record document',
        reference: '§ 630f (3) BGB, § 10 (3) MBO-Ä',
      },
      { id: 'DE-BILLING', covers: BILLING_COVER, years: 8, from: END_OF_YEAR, reference: '§ 147 (3) AO, § 14b UStG' },
      AUDIT,
    ]);
  });

  it("keep medical records as many years as the clinic chose, and billing records as the law's fixed term", () => {
    const years = (country: 'AT' | 'DE', recordsYears: number) => retentionRules(country, recordsYears).map((rule) => rule.years);
    assert.deepEqual(years('AT', 30), [30, 7, null]);
    assert.deepEqual(years('DE', 30), [30, 8, null]);
  });

  it('are none before set-retention, and then the preset the clinic set, 10 years by default', () => {
    assert.equal(clinicRetention(data.db), null);
    const set = setClinicRetention(data.db, 'AT', undefined);
    assert.deepEqual(set, { country: 'AT', records_years: 10, rules: retentionRules('AT', 10), changed: true });
    assert.deepEqual(clinicRetention(data.db), { country: 'AT', records_years: 10, rules: retentionRules('AT', 10) });
  });

  it('take the country in any case, between spaces, and say whether anything changed', () => {
    assert.equal(setClinicRetention(data.db, ' de ', 30).country, 'DE');
    assert.equal(setClinicRetention(data.db, 'DE', 30).changed, false);
    assert.equal(setClinicRetention(data.db, 'De', 12).changed, true);
    assert.equal(setClinicRetention(data.db, 'at', 12).changed, true);
    assert.deepEqual(clinicRetention(data.db), { country: 'AT', records_years: 12, rules: retentionRules('AT', 12) });
  });

  it('refuse a country without a preset at `country`, naming the two there are, and keep what was set', () => {
    setClinicRetention(data.db, 'DE', 15);
    const refusal = thrownBy(() => setClinicRetention(data.db, 'CH', 10));
    assert.ok(refusal instanceof ValidationError, `refused as invalid, not ${String(refusal)}`);
    assert.deepEqual(
      refusal.issues.map((issue) => [issue.loc, issue.type]),
      [[['body', 'country'], 'value_error']],
    );
    assert.match(refusal.issues[0]!.msg, /AT and DE \(Austria, Germany\), not for "CH"/);
    assert.equal(clinicRetention(data.db)!.country, 'DE');
  });
});

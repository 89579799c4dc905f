import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainOpenBalancesOfPatients, explainPatientsOwingInSeveralCurrencies } from '../../src/db/invoices.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/**
 * Every list query is read from an index (the quality bar: "an index for every list query"),
 * proved on SQLite's own plan rather than on timings.
 */
describe('the plans of the invoice queries', () => {
  const data = useTestDatabase();

  it("clinic check's patients owing in several currencies reads the open invoices alone, through their partial index (issue 39)", () => {
    const plan = explainPatientsOwingInSeveralCurrencies(data.db).join('\n');
    assert.match(plan, /SCAN invoices USING INDEX invoices_open_by_issued_at/);
    assert.doesNotMatch(plan, /invoices_by_patient|SCAN invoices\b(?! USING INDEX invoices_open_by_issued_at)/);
  });

  it("reads what a search page's patients owe through invoices_by_patient, patient by patient, in one statement (issue 43)", () => {
    const plan = explainOpenBalancesOfPatients(data.db).join('\n');
    assert.match(plan, /SEARCH invoices USING INDEX invoices_by_patient \(patient_id=\?\)/);
    assert.doesNotMatch(plan, /SCAN invoices\b/);
  });
});

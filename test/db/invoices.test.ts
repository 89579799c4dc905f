import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainOpenBalances, explainOpenBalancesOfPatients, explainPatientsOwingInSeveralCurrencies } from '../../src/db/invoices.js';
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

  it("reads what a search page's patients owe from the open invoices' covering index, patient by patient, in one statement (issue 43)", () => {
    const plan = explainOpenBalancesOfPatients(data.db).join('\n');
    assert.match(plan, /SEARCH invoices USING COVERING INDEX invoices_open_by_patient \(patient_id=\?\)/);
    // Grouped in the index's order: no sorting step.
    assert.doesNotMatch(plan, /SCAN invoices\b|TEMP B-TREE/);
  });

  it("reads what one patient owes from the open invoices' covering index, no invoice row (issue 43)", () => {
    const plan = explainOpenBalances(data.db).join('\n');
    assert.match(plan, /SEARCH invoices USING COVERING INDEX invoices_open_by_patient \(patient_id=\?\)/);
    assert.doesNotMatch(plan, /SCAN invoices\b|TEMP B-TREE/);
  });
});

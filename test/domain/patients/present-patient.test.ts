// The Patient as the API and `--json` show it, with what the patient owes (clinic-public-api.md §2.2; decisions.md §4; clinic-api-1.2.md and 1.3.md add its last fields).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findPatient } from '../../../src/db/patients.js';
import { balanceText, presentBalance, presentPatient, type PatientBalance } from '../../../src/domain/patients/present-patient.js';
import { PATIENT_RESPONSE_FIELDS } from '../../../src/fields/patient-fields.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

const NOTHING_OWED: PatientBalance = { owed: [], headline: null };

describe('a patient as the API shows it', () => {
  const data = useTestDatabase();

  it('writes a balance as a decimal string: "0" when nothing is owed, else with two decimals', () => {
    assert.equal(balanceText(0), '0');
    assert.equal(balanceText(12050), '120.50');
    assert.equal(balanceText(5), '0.05');
    assert.equal(balanceText(100), '1.00');
  });

  it('owes "0" in no currency while no invoice is open', () => {
    assert.deepEqual(presentBalance(NOTHING_OWED), { outstanding_balance: '0', outstanding_currency: null, outstanding_balances: [] });
  });

  it("names one amount and currency as 1.0.0's two fields do, and every currency owed besides", () => {
    const balance: PatientBalance = {
      owed: [
        { currency: 'CHF', cents: 4000 },
        { currency: 'EUR', cents: 12050 },
      ],
      headline: { currency: 'EUR', cents: 12050 },
    };
    assert.deepEqual(presentBalance(balance), {
      outstanding_balance: '120.50',
      outstanding_currency: 'EUR',
      outstanding_balances: [
        { currency: 'CHF', amount: '40.00' },
        { currency: 'EUR', amount: '120.50' },
      ],
    });
  });

  it('shows what was stored as the request gave it: booleans, the portal object, lists, the discount as text', () => {
    const created = createTestPatient(data.db, {
      gdpr_consent: true,
      portal_access: { xrays: true },
      communication_prefs: { email: ['invoices', 'reminders'] },
      discount_percent: 5.5,
      date_of_birth: '1985-12-10',
    });
    const shown = presentPatient(findPatient(data.db, created.id)!, NOTHING_OWED);
    assert.equal(shown.gdpr_consent, true);
    assert.equal(shown.recall_blocked, false);
    assert.equal(shown.visit_address_same_as_main, true);
    assert.equal(shown.is_active, true);
    assert.deepEqual(shown.portal_access, {
      invoices: false,
      quotations: false,
      xrays: true,
      scans: false,
      prescriptions: false,
      consent: false,
      communications: false,
      other: false,
    });
    assert.deepEqual(shown.communication_prefs, { email: ['invoices', 'reminders'] });
    assert.equal(shown.discount_percent, '5.5');
    assert.equal(shown.date_of_birth, '1985-12-10');
    assert.equal(shown.patient_number, created.patient_number);
  });

  it('has every response field and no request-only one, with version, every currency owed and erased_at last', () => {
    const created = createTestPatient(data.db);
    const keys = Object.keys(presentPatient(findPatient(data.db, created.id)!, NOTHING_OWED));
    assert.deepEqual([...keys].sort(), PATIENT_RESPONSE_FIELDS.map((spec) => spec.name).sort());
    assert.equal(keys.includes('link_existing_portal_user'), false);
    assert.deepEqual(keys.slice(-3), ['version', 'outstanding_balances', 'erased_at']);
    assert.deepEqual(keys.slice(0, 2), ['id', 'patient_number']);
  });

  it('shows the version and the erasure as stored', () => {
    const created = createTestPatient(data.db);
    const row = { ...findPatient(data.db, created.id)!, version: 3, erased_at: '2026-11-30T08:00:00.000Z', is_active: 0 };
    const shown = presentPatient(row, NOTHING_OWED);
    assert.deepEqual([shown.version, shown.erased_at, shown.is_active], [3, '2026-11-30T08:00:00.000Z', false]);
  });
});

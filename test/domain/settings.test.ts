// src/domain/settings.ts: the clinic's modules and settings, read on every call (decisions.md §2, §3; clinic-api-1.3.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeSetting } from '../../src/db/settings.js';
import { openDatabase } from '../../src/db/open-database.js';
import {
  clinicContactRule,
  clinicContactRuleSetting,
  clinicCountry,
  clinicCurrencySetting,
  clinicName,
  clinicTimeZoneSetting,
  isModuleEnabled,
  requireModuleEnabled,
  setClinicContactRule,
  setClinicCountry,
  setClinicCurrency,
  setClinicName,
  setClinicTimeZone,
  setModuleEnabled,
} from '../../src/domain/settings.js';
import { machineTimeZone } from '../../src/domain/validation/calendar.js';
import { AppError, ValidationError } from '../../src/errors.js';
import { useTestDatabase } from '../helpers/fixtures.js';

// The clinic's settings (decisions.md §2: modules; §3: time zone and currency; clinic-api-1.3.md:
// contact rule, name, country), read from the database on every call so that a change made at
// the desk applies to a running server at once. What each `clinic settings set-*` refuses and
// records: test/domain/desk/clinic-settings.test.ts.

describe('clinic settings', () => {
  const data = useTestDatabase({ each: true });

  it('has both modules on by default, and a module switched off at the desk is off for a running server at once', () => {
    const server = openDatabase(data.dataDir);
    try {
      assert.deepEqual([isModuleEnabled(server, 'billing'), isModuleEnabled(server, 'payments')], [true, true]);
      setModuleEnabled(data.db, 'billing', false);
      assert.equal(isModuleEnabled(server, 'billing'), false);
      assert.equal(isModuleEnabled(server, 'payments'), true, 'the other module stays on');
      assert.throws(
        () => requireModuleEnabled(server, 'billing'),
        (error: unknown) => error instanceof AppError && error.code === 'MODULE_DISABLED' && error.status === 403,
      );
      setModuleEnabled(data.db, 'billing', true);
      requireModuleEnabled(server, 'billing');
    } finally {
      server.close();
    }
  });

  it("reads times in the machine's zone and bills in EUR until the clinic sets its own, saying where each comes from", () => {
    assert.deepEqual(clinicTimeZoneSetting(data.db), { timezone: machineTimeZone(), source: 'machine' });
    assert.deepEqual(clinicCurrencySetting(data.db), { currency: 'EUR', source: 'default' });
    assert.equal(setClinicTimeZone(data.db, ' europe/vienna '), 'Europe/Vienna');
    assert.equal(setClinicCurrency(data.db, 'chf').currency, 'CHF');
    assert.deepEqual(clinicTimeZoneSetting(data.db), { timezone: 'Europe/Vienna', source: 'setting' });
    assert.deepEqual(clinicCurrencySetting(data.db), { currency: 'CHF', source: 'setting' });
  });

  it("holds patients to 1.0.0's contact rule until another is set, and to it again when the stored rule is one it does not know", () => {
    assert.deepEqual(clinicContactRuleSetting(data.db), { contact_rule: 'email-and-mobile', source: 'default' });
    assert.deepEqual(setClinicContactRule(data.db, 'email-and-mobile'), { contact_rule: 'email-and-mobile', changed: false });
    assert.deepEqual(setClinicContactRule(data.db, 'none'), { contact_rule: 'none', changed: true });
    assert.deepEqual(clinicContactRuleSetting(data.db), { contact_rule: 'none', source: 'setting' });
    writeSetting(data.db, 'contact_rule', 'whatever-a-newer-program-wrote');
    assert.deepEqual(clinicContactRuleSetting(data.db), { contact_rule: 'email-and-mobile', source: 'default' });
    assert.equal(clinicContactRule(data.db), 'email-and-mobile');
  });

  it('has no name or country until set, and says whether setting one changed it', () => {
    assert.deepEqual([clinicName(data.db), clinicCountry(data.db)], [null, null]);
    assert.deepEqual(setClinicName(data.db, 'Praxis Dr. Gruber'), { name: 'Praxis Dr. Gruber', changed: true });
    assert.deepEqual(setClinicName(data.db, 'Praxis Dr. Gruber'), { name: 'Praxis Dr. Gruber', changed: false });
    assert.deepEqual(setClinicCountry(data.db, ' at '), { country: 'AT', name: 'Austria', changed: true });
    assert.deepEqual(setClinicCountry(data.db, 'AT'), { country: 'AT', name: 'Austria', changed: false });
    assert.deepEqual([clinicName(data.db), clinicCountry(data.db)], ['Praxis Dr. Gruber', 'AT']);
  });

  it('refuses region codes ISO 3166-1 does not assign though the runtime names them, and anything but two letters', () => {
    for (const typed of ['ZZ', 'EU', 'ez', 'UN', 'QO', 'XY', 'AUT', 'A', '', '12']) {
      assert.throws(
        () => setClinicCountry(data.db, typed),
        (error: unknown) => error instanceof ValidationError && error.issues[0]?.loc.join('.') === 'body.country',
        typed,
      );
    }
    assert.equal(clinicCountry(data.db), null, 'nothing stored');
  });
});

import assert from 'node:assert/strict';
import type { Db } from '../../../src/db/open-database.js';
import {
  LIST_MODULES,
  SET_CLINIC_COUNTRY,
  SET_CLINIC_NAME,
  SET_CONTACT_RULE,
  SET_CURRENCY,
  SET_RETENTION,
  SET_TIME_ZONE,
  SWITCH_MODULE,
} from '../../../src/domain/desk/clinic-settings.js';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { aClinic, type ClinicGiven } from '../../helpers/clinic-given.js';
import { refusesNonAdmin } from '../../helpers/admin-only.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * The clinic's settings (`clinic settings set-*`), rule by rule: what each stores, refuses and
 * records. The desk's printouts, `settings show`, and what the settings change elsewhere (new
 * invoices, the day report, `serve`'s start): test/cli/commands/settings.test.ts.
 */

const body = (values: Record<string, unknown>) => () => ({ body: values });

/** Stored: the result's fields, and one setting.update naming the setting, or nothing when it stays. */
const stored = (result: Record<string, unknown>, changed: string[]): Outcome => ({
  result,
  audit: [{ action: 'setting.update', patient_id: null, subject_type: 'setting', subject_id: null, detail: { changed } }],
  changes: [],
});

const TIME_ZONE_STORED: [typed: string, zone: string][] = [
  ['europe/vienna', 'Europe/Vienna'],
  ['EUROPE/VIENNA', 'Europe/Vienna'],
  [' America/New_York ', 'America/New_York'],
  ['utc', 'UTC'],
  ['Etc/UTC', 'UTC'],
];

const TIME_ZONE_MEANT: [typed: string, meant: string][] = [
  ['Vienna', 'Europe/Vienna'],
  ['vienna', 'Europe/Vienna'],
  ['new york', 'America/New_York'],
  ['New_York', 'America/New_York'],
  ['Europe/Viena', 'Europe/Vienna'],
  ['Europe/Berlni', 'Europe/Berlin'],
  ['America/Vienna', 'Europe/Vienna'],
];

const timeZone: Scenario<ClinicGiven>[] = [
  ...TIME_ZONE_STORED.map(([typed, zone]): Scenario<ClinicGiven> => ({
    title: `stores ${JSON.stringify(typed)} as ${zone}`,
    given: aClinic(),
    request: body({ timezone: typed }),
    expect: () => stored({ timezone: zone }, ['timezone']),
  })),
  ...TIME_ZONE_MEANT.map(([typed, meant]): Scenario<ClinicGiven> => ({
    title: `refuses ${JSON.stringify(typed)}, offering ${meant}`,
    given: aClinic(),
    request: body({ timezone: typed }),
    expect: () => ({ invalid: ['body.timezone'], types: ['value_error'], ctx: [{ did_you_mean: [meant] }] }),
  })),
  {
    title: 'refuses a name close to no zone, offering nothing',
    given: aClinic(),
    request: body({ timezone: 'Mars/Olympus' }),
    expect: () => ({ invalid: ['body.timezone'], types: ['value_error'], ctx: [{ did_you_mean: [] }] }),
  },
];

const currency: Scenario<ClinicGiven>[] = [
  {
    title: 'stores an ISO 4217 code in capitals, saying no open invoice is in another',
    given: aClinic(),
    request: body({ currency: 'chf' }),
    expect: () => stored({ currency: 'CHF', open_in_other_currencies: [] }, ['currency']),
  },
  {
    title: 'names the currencies open invoices stay in, and how many of each',
    given: aClinic((db) => {
      createTestInvoice(db);
      createTestInvoice(db, { patient_id: createTestPatient(db).id, currency: 'USD' });
    }),
    request: body({ currency: 'CHF' }),
    expect: () =>
      stored(
        {
          currency: 'CHF',
          open_in_other_currencies: [
            { currency: 'EUR', invoices: 1 },
            { currency: 'USD', invoices: 1 },
          ],
        },
        ['currency'],
      ),
  },
  {
    title: 'refuses a code that is not ISO 4217 (value_error)',
    given: aClinic(),
    request: body({ currency: 'euro' }),
    expect: () => ({ invalid: ['body.currency'], types: ['value_error'] }),
  },
];

const clinicName: Scenario<ClinicGiven>[] = [
  {
    title: 'stores the name without the spaces around it',
    given: aClinic(),
    request: body({ name: '  Ordination Dr. Huber ' }),
    expect: () => stored({ name: 'Ordination Dr. Huber', changed: true }, ['name']),
  },
  {
    title: 'records a name set again as it was with nothing changed',
    given: aClinic((db) => void performUseCase(SET_CLINIC_NAME, db, { body: { name: 'Huber' } }, DESK_USER)),
    request: body({ name: 'Huber' }),
    expect: () => stored({ changed: false }, []),
  },
  {
    title: 'refuses a name of nothing but spaces as too short: names are stored trimmed',
    given: aClinic(),
    request: body({ name: '   ' }),
    expect: () => ({ invalid: ['body.name'], types: ['string_too_short'] }),
  },
  {
    title: 'refuses a name over 100 characters (string_too_long)',
    given: aClinic(),
    request: body({ name: 'x'.repeat(101) }),
    expect: () => ({ invalid: ['body.name'], types: ['string_too_long'] }),
  },
];

const clinicCountry: Scenario<ClinicGiven>[] = [
  {
    title: 'stores the country in capitals, with its name',
    given: aClinic(),
    request: body({ country: ' at ' }),
    expect: () => stored({ country: 'AT', name: 'Austria', changed: true }, ['country']),
  },
  {
    title: 'refuses a code ISO 3166-1 does not assign',
    given: aClinic(),
    request: body({ country: 'XX' }),
    expect: () => ({ invalid: ['body.country'], types: ['value_error'] }),
  },
];

const retention: Scenario<ClinicGiven>[] = [
  {
    title: 'sets a preset in any case, keeping medical records 10 years by default',
    given: aClinic(),
    request: body({ country: 'at' }),
    expect: () =>
      stored(
        {
          changed: true,
          country: 'AT',
          records_years: 10,
          rules: [
            { id: 'AT-RECORDS', years: 10 },
            { id: 'AT-BILLING', years: 7 },
            { id: 'AUDIT', years: null },
          ],
        },
        ['retention'],
      ),
  },
  {
    title: 'keeps records as long as asked, up to 30 years',
    given: aClinic(),
    request: body({ country: 'DE', records_years: 30 }),
    expect: () =>
      stored(
        { country: 'DE', records_years: 30, rules: [{ id: 'DE-RECORDS', years: 30 }, { id: 'DE-BILLING', years: 8 }, { id: 'AUDIT' }] },
        ['retention'],
      ),
  },
  {
    title: 'records a preset set again as it was with nothing changed',
    given: aClinic((db) => void performUseCase(SET_RETENTION, db, { body: { country: 'DE', records_years: 30 } }, DESK_USER)),
    request: body({ country: 'de', records_years: 30 }),
    expect: () => stored({ changed: false }, []),
  },
  {
    title: 'refuses a country without a preset, naming the two there are',
    given: aClinic(),
    request: body({ country: 'CH' }),
    expect: () => ({ invalid: ['body.country'], types: ['value_error'] }),
  },
  ...[9, 31].map((years): Scenario<ClinicGiven> => ({
    title: `refuses records kept ${years} years`,
    given: aClinic(),
    request: body({ country: 'AT', records_years: years }),
    expect: () => ({ invalid: ['body.records_years'] }),
  })),
];

const contactRule: Scenario<ClinicGiven>[] = [
  {
    title: 'sets how a patient must be reachable',
    given: aClinic(),
    request: body({ contact_rule: 'email-or-mobile' }),
    expect: () => stored({ contact_rule: 'email-or-mobile', changed: true }, ['contact_rule']),
  },
  {
    title: 'records the rule in force set again with nothing changed',
    given: aClinic(),
    request: body({ contact_rule: 'email-and-mobile' }),
    expect: () => stored({ changed: false }, []),
  },
  {
    title: 'refuses a rule it does not know (literal_error)',
    given: aClinic(),
    request: body({ contact_rule: 'phone' }),
    expect: () => ({ invalid: ['body.contact_rule'], types: ['literal_error'] }),
  },
];

/** Which modules are on, as `clinic module list` shows them. */
const modulesOn = (db: Db) =>
  performUseCase(LIST_MODULES, db, {}, DESK_USER)
    .filter((module) => module.enabled)
    .map((module) => module.module);

/** Switched: the module and its state, setting.update naming it, and the modules on after. */
const switched = (module: string, enabled: boolean, on: string[]): Outcome => ({
  ...stored({ module, enabled }, [`module.${module}`]),
  then: (db) => assert.deepEqual(modulesOn(db), on, 'the modules on'),
});

/**
 * SWITCH_MODULE (`clinic module enable|disable`): billing or payments on or off, at once. What a
 * module off refuses: each use case's table (MODULE_DISABLED rows); a running server following
 * the switch: test/server/routes/invoices.test.ts; the desk's printout: test/cli/program.test.ts.
 */
const switchModule: Scenario<ClinicGiven>[] = [
  {
    title: 'switches billing off, leaving payments on',
    given: aClinic(),
    request: body({ module: 'billing', enabled: false }),
    expect: () => switched('billing', false, ['payments']),
  },
  {
    title: 'switches payments off, leaving billing on',
    given: aClinic(),
    request: body({ module: 'payments', enabled: false }),
    expect: () => switched('payments', false, ['billing']),
  },
  {
    title: 'switches billing on again while it is off: the switch needs no module itself',
    given: aClinic((db) => void setModuleEnabled(db, 'billing', false)),
    request: body({ module: 'billing', enabled: true }),
    expect: () => switched('billing', true, ['billing', 'payments']),
  },
  {
    title: 'records a module switched to the state it is in as switched: the switch does not compare',
    given: aClinic(),
    request: body({ module: 'payments', enabled: true }),
    expect: () => switched('payments', true, ['billing', 'payments']),
  },
  {
    title: 'refuses a module the program does not have (literal_error)',
    given: aClinic(),
    request: body({ module: 'pharmacy', enabled: false }),
    expect: () => ({ invalid: ['body.module'], types: ['literal_error'] }),
  },
  {
    title: 'refuses "false" as a state: JSON types are strict',
    given: aClinic(),
    request: body({ module: 'billing', enabled: 'false' }),
    expect: () => ({ invalid: ['body.enabled'], types: ['bool_type'] }),
  },
  {
    title: 'refuses a switch that names neither module nor state',
    given: aClinic(),
    request: body({}),
    expect: () => ({ invalid: ['body.module', 'body.enabled'], types: ['missing', 'missing'] }),
  },
  refusesNonAdmin(aClinic(), body({ module: 'billing', enabled: false }), ['reception', 'practitioner', 'billing', 'scheduler']),
];

describeScenarios('SWITCH_MODULE', SWITCH_MODULE, switchModule);
describeScenarios('SET_TIME_ZONE', SET_TIME_ZONE, timeZone);
describeScenarios('SET_CURRENCY', SET_CURRENCY, currency);
describeScenarios('SET_CLINIC_NAME', SET_CLINIC_NAME, clinicName);
describeScenarios('SET_CLINIC_COUNTRY', SET_CLINIC_COUNTRY, clinicCountry);
describeScenarios('SET_RETENTION', SET_RETENTION, retention);
describeScenarios('SET_CONTACT_RULE', SET_CONTACT_RULE, contactRule);

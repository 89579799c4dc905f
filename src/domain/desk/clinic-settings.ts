import {
  clinicRetention,
  MAX_RECORDS_YEARS,
  MIN_RECORDS_YEARS,
  RETENTION_COUNTRIES,
  setClinicRetention,
  type Retention,
} from '../retention/retention-rules.js';
import { field } from '../../fields/field-spec.js';
import {
  clinicContactRuleSetting,
  clinicCountry,
  clinicCurrencySetting,
  clinicName,
  clinicTimeZoneSetting,
  CONTACT_RULES,
  isModuleEnabled,
  MODULES,
  setClinicContactRule,
  setClinicCountry,
  setClinicCurrency,
  setClinicName,
  setClinicTimeZone,
  setModuleEnabled,
  type ContactRule,
  type CurrencyChange,
  type ModuleName,
  type SettingSource,
} from '../settings.js';
import { defineUseCase } from '../use-case.js';
import type { AuditRecord } from '../audit/audit-event.js';
import { ROLE_ROWS } from '../people/roles.js';
import { blankNameIssues } from '../validation/blank-name.js';

/**
 * The clinic's settings at the desk (`clinic module …`, `clinic settings …`): what IT sets once
 * and the API reads on every request. None shows patient data; each change is recorded
 * (`setting.update`, interface 1.3.0), so the trail shows who changed the clinic's set-up, and when.
 */

/** What a setting's change records (interface 1.3.0): `setting.update`, no patient, the setting's name. */
const settingRecord = (name: string): AuditRecord => ({
  action: 'setting.update',
  patientId: null,
  subjectId: null,
  detail: { changed: [name] },
});

/** `clinic module enable|disable MODULE`: a module switched on or off, at once, also for a running server. */
export const SWITCH_MODULE = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Switch an optional module on or off (takes effect at once)',
  input: {
    body: [
      field.literal('module', { required: true, values: MODULES, description: MODULES.join(' or ') }),
      field.boolean('enabled', { required: true, description: 'on (true) or off (false)' }),
    ],
  },
  refusals: [],
  access: 'write',
  run: (db, { body }) => setModuleEnabled(db, body.module, body.enabled),
  audit: ({ module }) => [settingRecord(`module.${module}`)],
});

/** `clinic module list`: each module and whether it is on. */
export const LIST_MODULES = defineUseCase({
  roles: ROLE_ROWS.lookups,
  summary: 'Show which optional modules are on',
  input: {},
  refusals: [],
  access: 'read',
  run: (db): { module: ModuleName; enabled: boolean }[] => MODULES.map((module) => ({ module, enabled: isModuleEnabled(db, module) })),
});

/** `clinic settings show --json`: each setting and where its value comes from. */
export interface ClinicSettings {
  timezone: string;
  timezone_source: SettingSource;
  currency: string;
  currency_source: SettingSource;
  contact_rule: ContactRule;
  contact_rule_source: SettingSource;
  /** The clinic's name and country (1.3.0), null until set. */
  name: string | null;
  country: string | null;
  /** The retention preset (1.3.0, `settings set-retention`), null until set. */
  retention: Retention | null;
}

/** `clinic settings show`: the clinic settings and where each comes from (set, the machine's, the default). */
export const SHOW_SETTINGS = defineUseCase({
  roles: ROLE_ROWS.lookups,
  summary: 'Show the clinic settings and where each comes from',
  input: {},
  refusals: [],
  access: 'read',
  run(db): ClinicSettings {
    const zone = clinicTimeZoneSetting(db);
    const money = clinicCurrencySetting(db);
    const contact = clinicContactRuleSetting(db);
    return {
      timezone: zone.timezone,
      timezone_source: zone.source,
      currency: money.currency,
      currency_source: money.source,
      contact_rule: contact.contact_rule,
      contact_rule_source: contact.source,
      name: clinicName(db),
      country: clinicCountry(db),
      retention: clinicRetention(db),
    };
  },
});

/** `clinic settings set-timezone ZONE` (setClinicTimeZone: any case; a city alone is refused with its zone). */
export const SET_TIME_ZONE = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Set the IANA time zone in which date-times without an offset are read',
  input: { body: [field.string('timezone', { required: true, description: 'e.g. Europe/Vienna, in any case' })] },
  refusals: [],
  access: 'write',
  run: (db, { body }): { timezone: string } => ({ timezone: setClinicTimeZone(db, body.timezone) }),
  audit: () => [settingRecord('timezone')],
});

/** `clinic settings set-currency CODE` (setClinicCurrency: the default of new invoices; open ones keep theirs). */
export const SET_CURRENCY = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Set the clinic currency, the default of new invoices',
  input: { body: [field.string('currency', { required: true, description: 'an ISO 4217 code, e.g. EUR or CHF, in any case' })] },
  refusals: [],
  access: 'write',
  run: (db, { body }): CurrencyChange => setClinicCurrency(db, body.currency),
  audit: () => [settingRecord('currency')],
});

/**
 * `clinic settings set-contact-rule RULE`: how a patient must be reachable to be registered or
 * kept so by a change (POST and PATCH /patients, `create-patient`, `patient edit`), at once, also
 * for a running server. Recorded as `setting.update` (interface 1.3.0's action: no patient,
 * `detail.changed` `["contact_rule"]`, or `[]` when the rule in force stays), so the trail shows
 * who allowed patients without an email or a mobile, and since when.
 */
export const SET_CONTACT_RULE = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Set how a patient must be reachable to be registered: email-and-mobile, email-or-mobile or none',
  input: {
    body: [
      field.literal('contact_rule', {
        required: true,
        values: CONTACT_RULES,
        description: `${CONTACT_RULES.join(', ')} (default email-and-mobile, interface 1.0.0's rule)`,
      }),
    ],
  },
  refusals: [],
  access: 'write',
  run: (db, { body }) => setClinicContactRule(db, body.contact_rule),
  audit: ({ changed }) => [
    { action: 'setting.update', patientId: null, subjectId: null, detail: { changed: changed ? ['contact_rule'] : [] } },
  ],
});

/** What a change of one setting records: `setting.update` naming it, or nothing named when it stays. */
const changedSetting = (name: string, changed: boolean): AuditRecord => ({
  action: 'setting.update',
  patientId: null,
  subjectId: null,
  detail: { changed: changed ? [name] : [] },
});

/** `clinic settings set-name TEXT` (1.3.0): the clinic's name, which reminders say they come from. */
export const SET_CLINIC_NAME = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Set the clinic's name, as reminders give it ({clinic_name})",
  input: {
    body: [field.string('name', { required: true, minLength: 1, maxLength: 100, description: "the clinic's name, 1 to 100 characters" })],
  },
  refusals: [],
  access: 'write',
  moreIssues: ({ body }, fieldIssues) => blankNameIssues(body, fieldIssues),
  run: (db, { body }) => setClinicName(db, body.name.trim()),
  audit: ({ changed }) => [changedSetting('name', changed)],
});

/**
 * `clinic settings set-country CC` (1.3.0): the clinic's country, ISO 3166-1 alpha-2 in any case.
 * It chooses the default reminder templates' language (German for AT and DE) and how a mobile
 * number with a leading trunk 0 is read.
 */
export const SET_CLINIC_COUNTRY = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Set the clinic's country (ISO 3166-1 alpha-2, e.g. AT or DE)",
  input: { body: [field.string('country', { required: true, description: 'two letters, e.g. AT or DE, in any case' })] },
  refusals: [],
  access: 'write',
  run: (db, { body }) => setClinicCountry(db, body.country),
  audit: ({ changed }) => [changedSetting('country', changed)],
});

/** What `settings set-retention` takes (the desk's options are made from them). */
export const RETENTION_FIELDS = [
  field.string('country', { required: true, description: `${RETENTION_COUNTRIES.join(' or ')}, in any case: whose law sets the periods` }),
  field.integer('records_years', {
    minimum: MIN_RECORDS_YEARS,
    maximum: MAX_RECORDS_YEARS,
    description: `years medical records are kept, ${MIN_RECORDS_YEARS} to ${MAX_RECORDS_YEARS} (default ${MIN_RECORDS_YEARS}; chambers advise weighing 30: § 1489 ABGB, § 199 (2) BGB)`,
  }),
] as const;

/**
 * `clinic settings set-retention --country AT|DE [--records-years N]` (1.3.0): how long what a
 * patient's erasure cannot take at once is kept, by the country's law; records 10 to 30 years.
 */
export const SET_RETENTION = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Set the retention preset: AT or DE, and how many years medical records are kept (10 to 30)',
  input: { body: RETENTION_FIELDS },
  refusals: [],
  access: 'write',
  run: (db, { body }) => setClinicRetention(db, body.country, body.records_years ?? undefined),
  audit: ({ changed }) => [changedSetting('retention', changed)],
});

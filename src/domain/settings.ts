import type { Db } from '../db/open-database.js';
import { countOpenInvoicesByCurrency } from '../db/invoices.js';
import { readSetting, writeSetting } from '../db/settings.js';
import { errors, ValidationError } from '../errors.js';
import { canonicalTimeZone, suggestTimeZones } from './time-zones.js';
import { machineTimeZone } from './validation/calendar.js';
import { problems } from './validation/problems.js';
import { issue } from './validation/validate.js';
import { CONTACT_RULES, type ContactRule } from '../contact-rules.js';

/** The optional modules of decisions.md §2: clinic settings, on by default. */
export const MODULES = ['billing', 'payments'] as const;
export type ModuleName = (typeof MODULES)[number];

const moduleKey = (module: ModuleName) => `module.${module}`;

/**
 * Whether a module is on. Read from the database on every call, so `clinic module disable`
 * takes effect on a running server at once; the lookup is one indexed row.
 */
export function isModuleEnabled(db: Db, module: ModuleName): boolean {
  return readSetting(db, moduleKey(module)) !== 'off';
}

/** 403 MODULE_DISABLED unless the clinic has `module` on: the one check, for the API and the command line alike. */
export function requireModuleEnabled(db: Db, module: ModuleName): void {
  if (!isModuleEnabled(db, module)) throw errors.moduleDisabled(module);
}

/** Switches a module on or off (`clinic module enable|disable`, SWITCH_MODULE). */
export function setModuleEnabled(db: Db, module: ModuleName, enabled: boolean): { module: ModuleName; enabled: boolean } {
  writeSetting(db, moduleKey(module), enabled ? 'on' : 'off');
  return { module, enabled };
}

/** The clinic's time zone, in which offset-less date-times are read (default: the machine's). */
export function clinicTimeZone(db: Db): string {
  return readSetting(db, 'timezone') ?? machineTimeZone();
}

/** Where a setting's value comes from: stored by `clinic settings`, or the program's default. */
export type SettingSource = 'setting' | 'machine' | 'default';

/** The clinic's time zone and whether it was set (`setting`) or is the machine's zone (`machine`). */
export function clinicTimeZoneSetting(db: Db): { timezone: string; source: SettingSource } {
  const stored = readSetting(db, 'timezone');
  return stored === undefined ? { timezone: machineTimeZone(), source: 'machine' } : { timezone: stored, source: 'setting' };
}

/** A typed value in a message, cut so that the message stays on one desk line. */
const quoted = (value: string) => JSON.stringify(value.length > 20 ? `${value.slice(0, 19)}…` : value);

/**
 * Sets the clinic's time zone. Any case is taken and stored as IANA spells it (`europe/vienna` →
 * `Europe/Vienna`); an unknown name is refused with the zones it may have meant in
 * `ctx.did_you_mean` (`Vienna` → `Europe/Vienna`).
 */
export function setClinicTimeZone(db: Db, typed: string): string {
  const timeZone = canonicalTimeZone(typed.trim());
  if (timeZone === undefined) {
    const problem = problems.valueError(`${quoted(typed)} is not an IANA time zone (Region/City)`);
    const suggestions = suggestTimeZones(typed);
    throw new ValidationError([issue(['body', 'timezone'], { ...problem, ctx: { ...problem.ctx, did_you_mean: suggestions } }, typed)]);
  }
  writeSetting(db, 'timezone', timeZone);
  return timeZone;
}

/** What the clinic currency is when none was set. */
const DEFAULT_CURRENCY = 'EUR';

/** The clinic currency (ISO 4217 code, default EUR). */
export function clinicCurrency(db: Db): string {
  return readSetting(db, 'currency') ?? DEFAULT_CURRENCY;
}

/** The clinic currency and whether it was set (`setting`) or is the program's `default`. */
export function clinicCurrencySetting(db: Db): { currency: string; source: SettingSource } {
  const stored = readSetting(db, 'currency');
  return stored === undefined ? { currency: DEFAULT_CURRENCY, source: 'default' } : { currency: stored, source: 'setting' };
}

let knownCurrencies: ReadonlySet<string> | undefined;

/** A new clinic currency, and the invoices still open in another one (they keep theirs). */
export interface CurrencyChange {
  currency: string;
  open_in_other_currencies: { currency: string; invoices: number }[];
}

/**
 * Sets the clinic currency: an ISO 4217 code this runtime knows, in any case, stored in capitals.
 * Only new invoices are affected: each invoice keeps the currency it was issued in (its own
 * column), so the invoices still open in another currency are returned to be said.
 */
export function setClinicCurrency(db: Db, typed: string): CurrencyChange {
  knownCurrencies ??= new Set(Intl.supportedValuesOf('currency'));
  const currency = typed.trim().toUpperCase();
  if (!knownCurrencies.has(currency)) {
    throw new ValidationError([
      issue(['body', 'currency'], problems.valueError(`${quoted(typed)} is not an ISO 4217 currency code`), typed),
    ]);
  }
  writeSetting(db, 'currency', currency);
  return {
    currency,
    open_in_other_currencies: countOpenInvoicesByCurrency(db).filter((open) => open.currency !== currency),
  };
}

export { CONTACT_RULES, type ContactRule };

/** 1.0.0's rule, which a clinic keeps until it sets another. */
const DEFAULT_CONTACT_RULE: ContactRule = 'email-and-mobile';

const isContactRule = (text: string | undefined): text is ContactRule => (CONTACT_RULES as readonly unknown[]).includes(text);

/**
 * The clinic's contact rule and whether it was set (`setting`) or is the `default`. Read from the
 * database on every call, so a change applies to a running server at once, like a module.
 */
export function clinicContactRuleSetting(db: Db): { contact_rule: ContactRule; source: SettingSource } {
  const stored = readSetting(db, 'contact_rule');
  // Only this program writes the setting; a value it does not know keeps the strictest rule.
  return isContactRule(stored) ? { contact_rule: stored, source: 'setting' } : { contact_rule: DEFAULT_CONTACT_RULE, source: 'default' };
}

/** The contact rule new and changed patients are held to. */
export function clinicContactRule(db: Db): ContactRule {
  return clinicContactRuleSetting(db).contact_rule;
}

/** Sets the clinic's contact rule; `changed` says whether the rule in force is another now. */
export function setClinicContactRule(db: Db, rule: ContactRule): { contact_rule: ContactRule; changed: boolean } {
  const before = clinicContactRule(db);
  writeSetting(db, 'contact_rule', rule);
  return { contact_rule: rule, changed: before !== rule };
}

/**
 * The clinic's name (interface 1.3.0, `clinic settings set-name`): what a reminder says it comes
 * from (`{clinic_name}`), so a reminder rule needs it. Null until set.
 */
export function clinicName(db: Db): string | null {
  return readSetting(db, 'clinic_name') ?? null;
}

/** Sets the clinic's name (1..100 characters, checked by its field); `changed` says whether it is another now. */
export function setClinicName(db: Db, name: string): { name: string; changed: boolean } {
  const before = clinicName(db);
  writeSetting(db, 'clinic_name', name);
  return { name, changed: before !== name };
}

/** The clinic's country (ISO 3166-1 alpha-2, capitals), or null until set. */
export function clinicCountry(db: Db): string | null {
  return readSetting(db, 'country') ?? null;
}

let regionNames: Intl.DisplayNames | undefined;

/**
 * Codes that look like countries but are none: ICU names them (`ZZ` the unknown region, `EU`, `EZ`,
 * `UN`, `QO`), ISO 3166-1 does not assign them.
 */
const NOT_COUNTRIES: ReadonlySet<string> = new Set(['ZZ', 'EU', 'EZ', 'UN', 'QO']);

/**
 * Sets the clinic's country: two letters in any case, stored in capitals, that ISO 3166-1 assigns
 * (the runtime's region names know it: `XY` is not a country). It chooses the language of the
 * default reminder templates and how a mobile number with a leading trunk 0 is read.
 */
export function setClinicCountry(db: Db, typed: string): { country: string; name: string; changed: boolean } {
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  const country = typed.trim().toUpperCase();
  const name = /^[A-Z]{2}$/.test(country) && !NOT_COUNTRIES.has(country) ? regionNames.of(country) : undefined;
  if (name === undefined || name === country) {
    throw new ValidationError([
      issue(
        ['body', 'country'],
        problems.valueError(`${quoted(typed)} is not an ISO 3166-1 country code (two letters, e.g. AT or DE)`),
        typed,
      ),
    ]);
  }
  const before = clinicCountry(db);
  writeSetting(db, 'country', country);
  return { country, name, changed: before !== country };
}

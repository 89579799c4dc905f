import type { Db } from '../db/open-database.js';
import { readSetting, writeSetting } from '../db/settings.js';
import { errors, ValidationError } from './errors.js';
import { isKnownTimeZone, machineTimeZone } from './validation/calendar.js';
import { problems } from './validation/problems.js';
import { issue } from './validation/validate.js';

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

/** Switches a module on or off; `module` is validated because it comes from a person. */
export function setModuleEnabled(db: Db, module: string, enabled: boolean): { module: ModuleName; enabled: boolean } {
  if (!(MODULES as readonly string[]).includes(module)) {
    throw new ValidationError([issue(['body', 'module'], problems.literalError(MODULES), module)]);
  }
  writeSetting(db, moduleKey(module as ModuleName), enabled ? 'on' : 'off');
  return { module: module as ModuleName, enabled };
}

/** The clinic's time zone, in which offset-less date-times are read (default: the machine's). */
export function clinicTimeZone(db: Db): string {
  return readSetting(db, 'timezone') ?? machineTimeZone();
}

/** Sets the clinic's time zone to an IANA zone name. */
export function setClinicTimeZone(db: Db, timeZone: string): string {
  if (!isKnownTimeZone(timeZone)) {
    throw new ValidationError([issue(['body', 'timezone'], problems.valueError('unknown IANA time zone'), timeZone)]);
  }
  writeSetting(db, 'timezone', timeZone);
  return timeZone;
}

/** The clinic currency (ISO 4217 code, default EUR). */
export function clinicCurrency(db: Db): string {
  return readSetting(db, 'currency') ?? 'EUR';
}

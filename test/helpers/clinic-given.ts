import type { Db } from '../../src/db/open-database.js';

/** What a scenario of a clinic-wide use case (a setting, a lookup) starts with: nothing it names later. */
export type ClinicGiven = Record<string, never>;

/** A new clinic, and what `before` sets first (a setting, a module switched off). */
export const aClinic =
  (before: (db: Db) => void = () => {}) =>
  (db: Db): ClinicGiven => {
    before(db);
    return {};
  };

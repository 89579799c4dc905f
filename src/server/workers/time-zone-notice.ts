import type { Db } from '../../db/open-database.js';
import { clinicTimeZoneSetting } from '../../domain/settings.js';

/**
 * The start-up log line that says in which zone the server reads times without an offset. While
 * the clinic has set none (every start until it does, not only the first: a server's zone is
 * usually UTC, and a booking for 09:00 would silently be 09:00 UTC), it says so and names the
 * command that sets it.
 */
export function timeZoneNotice(db: Db): Record<string, unknown> {
  const { timezone, source } = clinicTimeZoneSetting(db);
  if (source === 'setting') return { event: 'timezone', timezone, source };
  return {
    event: 'timezone',
    timezone,
    source,
    note: `times are read in ${timezone} (this machine's zone); set the clinic's with: clinic settings set-timezone Europe/Vienna (its IANA name)`,
  };
}

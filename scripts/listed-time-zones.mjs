// The time zones a runtime's Intl lists, for the bundles to carry (src/domain/time-zones.ts,
// listedZones): run as a script, prints them with the versions of the ICU and tz data they come
// from, as JSON; listedTimeZonesOf runs it with the runtime a bundle is for.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The JSON this script prints when run by `runtime`: `{"icu", "tz", "zones"}`, an esbuild `define` value. */
export function listedTimeZonesOf(runtime = process.execPath) {
  return execFileSync(runtime, [fileURLToPath(import.meta.url)], { encoding: 'utf8' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(JSON.stringify({ icu: process.versions.icu, tz: process.versions.tz, zones: Intl.supportedValuesOf('timeZone') }));
}

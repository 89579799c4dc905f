// The zones a bundle carries (scripts/listed-time-zones.mjs, read by src/domain/time-zones.ts):
// exactly what the runtime that printed them lists, with its ICU and tz data versions.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { listedTimeZonesOf } from '../../scripts/listed-time-zones.mjs';

it("prints the zones the runtime's Intl lists, with the versions of its ICU and tz data", () => {
  const printed = JSON.parse(listedTimeZonesOf(process.execPath)) as { icu: string; tz: string; zones: string[] };
  assert.deepEqual(printed, { icu: process.versions.icu, tz: process.versions.tz, zones: Intl.supportedValuesOf('timeZone') });
});

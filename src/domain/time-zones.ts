/**
 * Time zone names as a person types them: any case, a city instead of a zone, a letter off.
 * Intl is the authority on what a zone is and how it is spelt; this module only finds the names
 * to offer when it refuses one.
 */

import { editDistance } from './validation/edit-distance.js';

/** Zone names that Intl takes but does not list in supportedValuesOf (Node 20 lists no `UTC`). */
const UNLISTED_ZONES = ['UTC'];

// Set by the build (scripts/listed-time-zones.mjs, an esbuild `define`): the zones the runtime it
// builds for lists, with the versions of the ICU and tz data they came from. Undefined when the
// sources run unbundled.
declare const CLINIC_LISTED_TIME_ZONES: BuiltZoneList | undefined;

/** The zones a runtime's Intl listed, with the versions of the ICU and tz data they came from. */
export interface BuiltZoneList {
  icu: string;
  tz: string;
  zones: readonly string[];
}

let knownZones: readonly string[] | undefined;
let knownZoneSet: ReadonlySet<string> | undefined;

/**
 * Every zone name this runtime lists, read once: the build's list when this runtime has the ICU
 * and tz data it was read from, else Intl's. Asking Intl costs 1.2 ms, and every desk command
 * asks (local-time-zones.ts, nameableInTz): 3 % of a `patient show`.
 */
function listedZones(): readonly string[] {
  knownZones ??= [
    ...zonesListedBy(typeof CLINIC_LISTED_TIME_ZONES === 'undefined' ? undefined : CLINIC_LISTED_TIME_ZONES),
    ...UNLISTED_ZONES,
  ];
  return knownZones;
}

/** The zones a runtime of `versions` lists: `built` where it was read from the same ICU and tz data, else Intl's. */
export function zonesListedBy(
  built: BuiltZoneList | undefined,
  versions: { readonly [name: string]: string | undefined } = process.versions,
): readonly string[] {
  const sameData = built !== undefined && built.icu === versions.icu && built.tz === versions.tz;
  return sameData ? built.zones : Intl.supportedValuesOf('timeZone');
}

/** Whether this runtime lists `timeZone` as it is spelt (`UTC` included). */
export function isListedTimeZone(timeZone: string): boolean {
  knownZoneSet ??= new Set(listedZones());
  return knownZoneSet.has(timeZone);
}

/**
 * The IANA spelling of a zone name in any case (`europe/vienna` → `Europe/Vienna`, `etc/utc` →
 * `UTC`): the name Intl resolves it to, or undefined when Intl knows no such zone. An offset
 * (`+01:00`, which newer runtimes take as a zone) is no clinic zone: it has no summer time.
 */
export function canonicalTimeZone(text: string): string | undefined {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: text }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return /^[A-Za-z]/.test(resolved) ? resolved : undefined;
}

/** `New_York`, `new-york`, ` New  York ` → `new york`: a city as people write it. */
const cityKey = (text: string) =>
  text
    .toLowerCase()
    .replace(/[_\-\s]+/g, ' ')
    .trim();

/** The city part of a zone or of what was typed: after its last `/`. */
const cityOf = (text: string) => text.slice(text.lastIndexOf('/') + 1);

/** At most this many names are offered: more is a list to read, not a suggestion. */
const MAX_SUGGESTIONS = 3;

/**
 * The zones a refused name probably meant, best first: zones of that city (`Vienna`,
 * `america/vienna` → `Europe/Vienna`; `new york` → `America/New_York`), else the names one or two
 * letters away (`Europe/Viena` → `Europe/Vienna`), as a whole zone or as a city. Empty when
 * nothing is close.
 */
export function suggestTimeZones(text: string): string[] {
  const typed = cityKey(text);
  const typedCity = cityKey(cityOf(text));
  if (typedCity === '') return [];
  const zones = listedZones();
  const sameCity = zones.filter((zone) => cityKey(cityOf(zone)) === typedCity);
  if (sameCity.length > 0) return sameCity.slice(0, MAX_SUGGESTIONS);
  // A city whose zone is known under an older or newer name only (`Kyiv` where Intl lists Europe/Kiev).
  const regions = [...new Set(zones.filter((zone) => zone.includes('/')).map((zone) => zone.slice(0, zone.indexOf('/'))))];
  const aliased = regions.map((region) => canonicalTimeZone(`${region}/${typedCity.replaceAll(' ', '_')}`));
  const aliasZones = [...new Set(aliased.filter((zone): zone is string => zone !== undefined))];
  if (aliasZones.length > 0) return aliasZones.slice(0, MAX_SUGGESTIONS);
  // One letter off in a short name, two in a longer one: `Lima` → `Rome` would be no help.
  const limit = typedCity.length <= 4 ? 1 : 2;
  const scored = zones
    .map((zone) => ({
      zone,
      distance: Math.min(editDistance(typed, cityKey(zone), limit), editDistance(typedCity, cityKey(cityOf(zone)), limit)),
    }))
    .filter(({ distance }) => distance <= limit)
    .sort((a, b) => a.distance - b.distance);
  const best = scored[0]?.distance;
  return scored
    .filter(({ distance }) => distance === best)
    .map(({ zone }) => zone)
    .slice(0, MAX_SUGGESTIONS);
}

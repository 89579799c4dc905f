// Time zone names as a person types them, for `clinic settings set-timezone`: the zone of clinic local time (decisions.md §3, "Values"; clinic-api-1.1.md, GET /appointments).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalTimeZone, isListedTimeZone, suggestTimeZones, zonesListedBy } from '../../src/domain/time-zones.js';

describe('time zone names', () => {
  it('spells a zone typed in any case as IANA does, and UTC as UTC', () => {
    assert.equal(canonicalTimeZone('europe/vienna'), 'Europe/Vienna');
    assert.equal(canonicalTimeZone('AMERICA/NEW_YORK'), 'America/New_York');
    assert.equal(canonicalTimeZone('etc/utc'), 'UTC');
    assert.equal(canonicalTimeZone('UTC'), 'UTC');
  });

  it('knows no zone by an offset, which has no summer time, nor by a name Intl does not know', () => {
    assert.equal(canonicalTimeZone('+01:00'), undefined);
    assert.equal(canonicalTimeZone('-05:00'), undefined);
    assert.equal(canonicalTimeZone('Mars/Olympus'), undefined);
    assert.equal(canonicalTimeZone(''), undefined);
  });

  it('lists a zone as it is spelt, UTC included, which Node 20 leaves out of its list', () => {
    assert.equal(isListedTimeZone('Europe/Vienna'), true);
    assert.equal(isListedTimeZone('UTC'), true);
    assert.equal(isListedTimeZone('europe/vienna'), false);
    assert.equal(isListedTimeZone('Mars/Olympus'), false);
  });

  it("takes the build's list of zones only from a runtime with the ICU and tz data it was read from, else asks Intl", () => {
    const built = { icu: process.versions.icu!, tz: process.versions.tz!, zones: ['Europe/Vienna', 'Test/Built'] };
    assert.deepEqual(zonesListedBy(built), ['Europe/Vienna', 'Test/Built']);
    const intl = Intl.supportedValuesOf('timeZone');
    assert.deepEqual(zonesListedBy(built, { icu: '0.1', tz: process.versions.tz }), intl);
    assert.deepEqual(zonesListedBy(built, { icu: process.versions.icu, tz: '1999a' }), intl);
    assert.deepEqual(zonesListedBy(undefined), intl);
  });

  it('offers the zone of a city typed alone, in any case, with spaces, or under the wrong region', () => {
    for (const [typed, meant] of [
      ['Vienna', 'Europe/Vienna'],
      ['vienna', 'Europe/Vienna'],
      ['new york', 'America/New_York'],
      ['New_York', 'America/New_York'],
      ['  New  York ', 'America/New_York'],
      ['america/vienna', 'Europe/Vienna'],
      ['Buenos Aires', 'America/Buenos_Aires'],
    ] as const)
      assert.deepEqual(suggestTimeZones(typed), [meant], typed);
  });

  it('offers the zone of a city this runtime knows under another name only (Kyiv)', () => {
    // Node 20 lists Europe/Kiev, a later runtime Europe/Kyiv: whichever it resolves the new name to.
    const kyiv = canonicalTimeZone('Europe/Kyiv');
    assert.ok(kyiv === 'Europe/Kiev' || kyiv === 'Europe/Kyiv', kyiv);
    assert.deepEqual(suggestTimeZones('Kyiv'), [kyiv]);
  });

  it('offers names two letters off in a longer name, one in a name of four letters, all equally close ones', () => {
    assert.deepEqual(suggestTimeZones('Europe/Viena'), ['Europe/Vienna']);
    assert.deepEqual(suggestTimeZones('Europe/Berlni'), ['Europe/Berlin']);
    assert.deepEqual(suggestTimeZones('Sydny'), ['Australia/Sydney']);
    assert.deepEqual(suggestTimeZones('Lina'), ['America/Lima']);
    // One letter off each of three cities: all three, in the list's order.
    assert.deepEqual(suggestTimeZones('Xome'), ['Africa/Lome', 'America/Nome', 'Europe/Rome']);
    // Two letters off a four-letter name is another city, no help: Lima is not Rome.
    assert.deepEqual(suggestTimeZones('Lixx'), []);
  });

  it('offers nothing for a name close to no zone, or for no city at all', () => {
    assert.deepEqual(suggestTimeZones('Mars/Olympus'), []);
    assert.deepEqual(suggestTimeZones('Europe/'), []);
    assert.deepEqual(suggestTimeZones(''), []);
  });
});

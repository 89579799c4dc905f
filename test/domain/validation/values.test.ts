// values.ts: a validated request's values in the canonical form a use case reads and stores:
// defaults filled in, ids lower case, money in cents, date-times UTC (decisions.md §3 and §4).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { field, optionalText } from '../../../src/fields/field-spec.js';
import { PORTAL_ACCESS_FIELDS } from '../../../src/fields/patient-fields.js';
import { normalizeFields, normalizePresent } from '../../../src/domain/validation/values.js';

const BERLIN = { timeZone: 'Europe/Berlin' };

const BOOKING_FIELDS = [
  field.uuid('patient_id', { required: true }),
  field.uuidList('service_ids'),
  field.datetime('start_at', { required: true }),
  field.money('amount', { maxWholeDigits: 8, maxFractionDigits: 2 }),
  field.decimal('discount_percent', { nullable: true }),
  field.string('status', { default: 'booked' }),
  optionalText('note', 500),
  field.string('title'),
] as const;

const ID = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';
const id = ID.toLowerCase();

describe('normalised values', () => {
  it('fills an absent field with its default, else null when it is nullable, and drops unknown keys', () => {
    const values = normalizeFields(BOOKING_FIELDS, { patient_id: id, start_at: '2026-12-01T09:00Z', colour: 'red' }, BERLIN);
    assert.equal(values.status, 'booked');
    assert.equal(values.note, null);
    assert.equal(values.discount_percent, null);
    assert.equal(values.title, undefined);
    assert.equal('colour' in values, false);
  });

  it('keeps a null given for a nullable field, even one with a default: null is not absent', () => {
    const COLOR_FIELDS = [
      field.string('color', { nullable: true, default: '#3366cc' }),
      field.uuid('resource_id', { nullable: true }),
    ] as const;
    assert.deepEqual(normalizeFields(COLOR_FIELDS, { color: null, resource_id: null }, BERLIN), { color: null, resource_id: null });
    assert.deepEqual(normalizeFields(COLOR_FIELDS, {}, BERLIN), { color: '#3366cc', resource_id: null });
  });

  it('writes ids in lower case, alone and in a list (decisions.md §3)', () => {
    const values = normalizeFields(BOOKING_FIELDS, { patient_id: ID, service_ids: [ID, id], start_at: '2026-12-01T09:00Z' }, BERLIN);
    assert.equal(values.patient_id, id);
    assert.deepEqual(values.service_ids, [id, id]);
  });

  it('turns money into whole cents and a decimal into canonical text, from a number or a numeral', () => {
    const cases: [unknown, number, unknown, string][] = [
      ['120.5', 12050, '.5', '0.5'],
      [0.3, 30, '5.', '5'],
      ['12345678.99', 1234567899, '10.50', '10.50'],
      [7, 700, 12.25, '12.25'],
    ];
    for (const [amount, cents, discount, canonical] of cases) {
      const values = normalizeFields(
        BOOKING_FIELDS,
        { patient_id: id, start_at: '2026-12-01T09:00Z', amount, discount_percent: discount },
        BERLIN,
      );
      assert.deepEqual([values.amount, values.discount_percent], [cents, canonical], JSON.stringify([amount, discount]));
    }
  });

  it("reads a date-time without an offset in the clinic's zone and answers UTC with Z (decisions.md §3)", () => {
    const startOf = (start_at: string, timeZone: string) =>
      normalizeFields(BOOKING_FIELDS, { patient_id: id, start_at }, { timeZone }).start_at;
    assert.equal(startOf('2026-12-01T09:00', 'Europe/Berlin'), '2026-12-01T08:00:00.000Z');
    assert.equal(startOf('2026-07-01T09:00', 'Europe/Berlin'), '2026-07-01T07:00:00.000Z');
    assert.equal(startOf('2026-12-01T09:00', 'America/New_York'), '2026-12-01T14:00:00.000Z');
    // An offset given wins over the clinic's zone.
    assert.equal(startOf('2026-12-01T09:00+05:30', 'Europe/Berlin'), '2026-12-01T03:30:00.000Z');
    assert.equal(startOf('2026-12-01T09:00Z', 'America/New_York'), '2026-12-01T09:00:00.000Z');
  });

  it("takes a query's text as the boolean or integer it names", () => {
    const QUERY_FIELDS = [field.boolean('unpaid', { acceptsText: true }), field.integer('limit', { acceptsText: true })] as const;
    const read = (unpaid: string, limit: string) => normalizeFields(QUERY_FIELDS, { unpaid, limit }, BERLIN);
    assert.deepEqual(read('true', ' +42 '), { unpaid: true, limit: 42 });
    assert.deepEqual(read('0', '7'), { unpaid: false, limit: 7 });
  });

  it('completes a partial portal_access with false, and an absent one whole (decisions.md §4)', () => {
    const PORTAL_FIELDS = [field.object('portal_access', { fields: PORTAL_ACCESS_FIELDS })] as const;
    const [first, ...others] = PORTAL_ACCESS_FIELDS.map((spec) => spec.name);
    assert.equal(PORTAL_ACCESS_FIELDS.length, 8);
    const partial = normalizeFields(PORTAL_FIELDS, { portal_access: { [first!]: true } }, BERLIN).portal_access;
    assert.deepEqual(partial, Object.fromEntries([[first, true], ...others.map((name) => [name, false])]));
    const absent = normalizeFields(PORTAL_FIELDS, {}, BERLIN).portal_access;
    assert.deepEqual(absent, Object.fromEntries(PORTAL_ACCESS_FIELDS.map((spec) => [spec.name, false])));
  });

  it('removes characters that print as nothing from a field that drops them, and only there', () => {
    const NAME_FIELDS = [field.string('last_name', { dropsInvisible: true }), field.string('notes')] as const;
    const values = normalizeFields(NAME_FIELDS, { last_name: 'Z\u200bürcher\u00ad', notes: 'Z\u200bürcher' }, BERLIN);
    assert.deepEqual(values, { last_name: 'Zürcher', notes: 'Z\u200bürcher' });
  });

  it('gives a merge patch only the fields it names, an object only the keys it names, and null as null', () => {
    const PATCH_FIELDS = [
      optionalText('note', 500),
      field.string('status'),
      field.uuid('resource_id', { nullable: true }),
      field.object('portal_access', { fields: PORTAL_ACCESS_FIELDS }),
    ] as const;
    const [first] = PORTAL_ACCESS_FIELDS.map((spec) => spec.name);
    const patch = normalizePresent(PATCH_FIELDS, { note: null, resource_id: ID, portal_access: { [first!]: true } }, BERLIN);
    assert.deepEqual(patch, { note: null, resource_id: id, portal_access: { [first!]: true } });
    assert.deepEqual(normalizePresent(PATCH_FIELDS, {}, BERLIN), {});
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { FieldSpec } from '../../../src/fields/field-spec.js';
import * as appointmentFields from '../../../src/fields/appointment-fields.js';
import * as billingFields from '../../../src/fields/billing-fields.js';
import * as catalogFields from '../../../src/fields/catalog-fields.js';
import * as documentFields from '../../../src/fields/document-fields.js';
import * as notificationFields from '../../../src/fields/notification-fields.js';
import * as pageFields from '../../../src/fields/page-fields.js';
import * as patientFields from '../../../src/fields/patient-fields.js';
import { objectStruct } from '../../../src/domain/validation/structs.js';
import { walkIssues } from '../../../src/domain/validation/validate.js';

// A valid request is checked by Structure.accepts alone, and superstruct's walk runs only for one
// that is refused (structs.ts). Both must give the same verdict on every value, or a request
// would pass that the walk refuses. Checked on every field list of the API, with generated
// values that are valid, on an edge, or of the wrong kind, field by field and in nested parts.

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const FC_OPTIONS = { numRuns: RUNS, ...(process.env.TEST_SEED ? { seed: Number(process.env.TEST_SEED) } : {}) };

const isFieldList = (value: unknown): value is readonly FieldSpec[] =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every((item) => typeof item === 'object' && item !== null && 'kind' in item && 'name' in item);

const FIELD_LISTS = Object.entries({
  ...appointmentFields,
  ...billingFields,
  ...catalogFields,
  ...documentFields,
  ...notificationFields,
  ...pageFields,
  ...patientFields,
}).filter((entry): entry is [string, readonly FieldSpec[]] => isFieldList(entry[1]));

const WRONG_KIND = fc.oneof(
  fc.constantFrom<unknown>('', ' ', '\ud800', 'x', 0, -1, 1.5, true, false, [], {}, [null], { a: 1 }),
  fc.jsonValue({ maxDepth: 2 }),
);

const around = (limit: number | undefined, fallback: number) => {
  const n = limit ?? fallback;
  return fc.constantFrom(Math.max(0, n - 1), n, n + 1);
};

/** Values for one field: valid ones, ones on an edge of its limits, and ones of another kind. */
function valueFor(spec: FieldSpec): fc.Arbitrary<unknown> {
  let ofKind: fc.Arbitrary<unknown>;
  switch (spec.kind) {
    case 'string':
      ofKind = fc.oneof(
        fc.string({ maxLength: 8 }),
        around(spec.maxLength, 64).map((n) => 'ä'.repeat(n)),
        around(spec.minLength, 1).map((n) => 'x'.repeat(n)),
        fc.constantFrom('a@b.example', '@b', 'a@', ' a @ b ', '\ud83d\ude00', '\udc00x', '12:30', 'P-1', '#3366cc', '#33'),
      );
      break;
    case 'integer':
      ofKind = fc.oneof(
        fc.integer({ min: -5, max: 1000 }),
        fc.constantFrom(spec.minimum, spec.maximum, (spec.minimum ?? 0) - 1, (spec.maximum ?? 0) + 1, 2 ** 53, '42', ' +7 ', '4x', 2.5),
      );
      break;
    case 'money':
    case 'decimal':
      ofKind = fc.constantFrom(
        '0',
        '0.00',
        '0.01',
        '-0.01',
        '-0',
        '10.005',
        '10.50',
        '99999999.99',
        '100000000',
        '1e3',
        ' 5',
        10,
        0.1,
        -1,
        1e21,
        NaN,
      );
      break;
    case 'boolean':
      ofKind = fc.constantFrom(true, false, 'true', 'false', '1', '0', 'yes', 1);
      break;
    case 'uuid':
      ofKind = fc.oneof(fc.uuid(), fc.constantFrom('not-a-uuid', '00000000-0000-0000-0000-00000000000g', ''));
      break;
    case 'date':
      ofKind = fc.constantFrom('2026-12-01', '1961-07-23', '2025-02-29', '2024-02-29', '2026-13-01', '2026-12-1', '');
      break;
    case 'datetime':
      ofKind = fc.constantFrom('2026-12-01T09:00', '2026-12-01T09:00Z', '2026-12-01T09:00:00+14:00', '2026-12-01 09:00', '2026-12-01', 'x');
      break;
    case 'literal':
      ofKind = fc.oneof(fc.constantFrom(...spec.values), fc.constant('not-one-of-them'));
      break;
    case 'uuid_list':
      ofKind = fc.array(valueFor({ name: 'item', kind: 'uuid', required: true }), { maxLength: (spec.maxItems ?? 3) + 1 });
      break;
    case 'string_list':
      ofKind = fc.array(
        fc.oneof(
          fc.string({ maxLength: 4 }),
          around(spec.maxItemLength, 64).map((n) => 'a'.repeat(n)),
          WRONG_KIND,
        ),
        {
          maxLength: Math.min(spec.maxItems + 1, 8),
        },
      );
      break;
    case 'object':
      ofKind = partlyWrong(spec.fields);
      break;
    case 'object_list':
      ofKind = fc.array(partlyWrong(spec.fields), { maxLength: 3 });
      break;
    case 'string_list_map':
      ofKind = fc.dictionary(
        fc.oneof(
          fc.string({ maxLength: 4 }),
          around(spec.maxKeyLength, 64).map((n) => 'k'.repeat(n)),
        ),
        fc.oneof(
          fc.array(
            fc.oneof(
              fc.string({ maxLength: 4 }),
              around(spec.maxItemLength, 64).map((n) => 'v'.repeat(n)),
            ),
            {
              maxLength: spec.maxItems + 1,
            },
          ),
          WRONG_KIND,
        ),
        { maxKeys: 3 },
      );
      break;
    case 'json_object':
      throw new Error('a json_object field is never taken in a request');
  }
  return fc.oneof(
    { weight: 6, arbitrary: ofKind },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: WRONG_KIND },
  );
}

/** An object of `fields` that is valid but for (at most) one field, which may be anything. */
function partlyWrong(fields: readonly FieldSpec[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.constantFrom(...fields).chain((changed) =>
    valueFor(changed).map((value) => {
      const object: Record<string, unknown> = { ...validBase(fields) };
      if (value === undefined) delete object[changed.name];
      else object[changed.name] = value;
      return object;
    }),
  );
}

/** The least valid object of `fields`: its required fields with a valid value each. */
function validBase(fields: readonly FieldSpec[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const spec of fields) if (spec.required) object[spec.name] = validValue(spec);
  return object;
}

function validValue(spec: FieldSpec): unknown {
  switch (spec.kind) {
    case 'string':
      return spec.format === 'email' ? 'a@b.example' : 'x'.repeat(spec.minLength ?? 1);
    case 'integer':
      return spec.minimum ?? 1;
    case 'money':
      return '1.00';
    case 'decimal':
      return '1';
    case 'boolean':
      return true;
    case 'uuid':
      return '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    case 'date':
      return '2026-12-01';
    case 'datetime':
      return '2026-12-01T09:00Z';
    case 'literal':
      return spec.values[0];
    case 'uuid_list':
    case 'object_list':
      return [];
    case 'string_list_map':
      return {};
    case 'object':
      return validBase(spec.fields);
  }
}

describe('a struct accepts exactly what its walk finds no issue in', () => {
  it('covers the field lists of the API', () => {
    assert.ok(FIELD_LISTS.length >= 20, `found ${FIELD_LISTS.length} field lists`);
  });

  for (const [name, fields] of FIELD_LISTS) {
    it(`${name}: one field changed, or any object`, () => {
      const struct = objectStruct('body', fields);
      fc.assert(
        fc.property(fc.oneof({ weight: 4, arbitrary: partlyWrong(fields) }, { weight: 1, arbitrary: WRONG_KIND }), (value) => {
          const issues = walkIssues(struct, value, 'body');
          assert.equal(struct.accepts(value), issues.length === 0, JSON.stringify(issues.slice(0, 3)));
        }),
        FC_OPTIONS,
      );
    });
  }
});

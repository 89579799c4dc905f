// validate.ts: a request part's failures as the 422 `detail` items of clinic-public-api.md §7
// (type, loc, msg, input, ctx; decisions.md §1), every part reported together, and each answer
// bounded however large the request (docs/design-choices.md, "Hostile JSON bodies").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError, type ValidationIssue } from '../../../src/errors.js';
import { field, optionalText } from '../../../src/fields/field-spec.js';
import { problems } from '../../../src/domain/validation/problems.js';
import { ECHO_BOUNDS, echoInput, fieldsValidator, issue, throwIfIssues } from '../../../src/domain/validation/validate.js';

const PAYMENT_FIELDS = [
  field.money('amount', { required: true, exclusiveMinimum: 0, maxWholeDigits: 8, maxFractionDigits: 2 }),
  field.literal('method', { required: true, values: ['cash', 'card', 'bank', 'other'] }),
  optionalText('note', 500),
  field.uuidList('service_ids'),
] as const;
const payment = fieldsValidator(PAYMENT_FIELDS, 'body');

const UTC = { timeZone: 'UTC' };
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("a request part's issues", () => {
  it('reports an absent body, or a JSON null, as missing at ["body"] with input null', () => {
    for (const body of [undefined, null]) {
      assert.deepEqual(payment.issues(body), [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
    }
  });

  it('reports a body that is not an object as model_attributes_type at ["body"], echoing it', () => {
    for (const body of [[], [{ amount: 1, method: 'cash' }], 'cash', 42, true]) {
      assert.deepEqual(payment.issues(body), [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: body,
        },
      ]);
    }
  });

  it("reports every failing field at once, in the fields' order, each at its loc with its input and ctx", () => {
    const body = { method: 'cheque', note: 'x'.repeat(501), service_ids: ['not-an-id'] };
    assert.deepEqual(payment.issues(body), [
      // A missing field echoes the object it is missing from, as pydantic does.
      { type: 'missing', loc: ['body', 'amount'], msg: 'Field required', input: body },
      {
        type: 'literal_error',
        loc: ['body', 'method'],
        msg: "Input should be 'cash', 'card', 'bank' or 'other'",
        input: 'cheque',
        ctx: { expected: "'cash', 'card', 'bank' or 'other'" },
      },
      {
        type: 'string_too_long',
        loc: ['body', 'note'],
        msg: 'String should have at most 500 characters',
        input: body.note,
        ctx: { max_length: 500 },
      },
      {
        type: 'uuid_parsing',
        loc: ['body', 'service_ids', 0],
        msg: 'Input should be a valid UUID, invalid length: expected 36 characters, found 9',
        input: 'not-an-id',
        ctx: { error: 'invalid length: expected 36 characters, found 9' },
      },
    ]);
  });

  it('locates a query parameter under "query" and passes a valid part with no issues at all', () => {
    const page = fieldsValidator([field.integer('limit', { acceptsText: true, minimum: 1, maximum: 200 })] as const, 'query');
    assert.deepEqual(
      page.issues({ limit: '201' }).map((found) => [found.type, found.loc]),
      [['less_than_equal', ['query', 'limit']]],
    );
    assert.deepEqual(page.issues({ limit: '200', unknown: 'x' }), []);
  });

  it("parse throws one ValidationError with the part's issues, or returns the normalised values", () => {
    assert.throws(
      () => payment.parse({ amount: 0, method: 'cash' }, UTC),
      (error) => error instanceof ValidationError && error.issues.length === 1 && error.issues[0]?.type === 'greater_than',
    );
    assert.deepEqual(payment.parse({ amount: '12.5', method: 'card' }, UTC), {
      amount: 1250,
      method: 'card',
      note: null,
      service_ids: undefined,
    });
  });

  it('throws the issues of every request part together, in the order the parts are given, and nothing when there are none', () => {
    const pathIssue = issue(['path', 'invoice_id'], problems.uuidParsing('invalid length: expected 36 characters, found 1'), 'x');
    const headerIssue = issue(['header', 'idempotency-key'], problems.stringTooShort(1), '');
    const bodyIssue = issue(['body'], problems.missing(), null);
    assert.doesNotThrow(() => throwIfIssues([], [], [], []));
    assert.throws(
      () => throwIfIssues([pathIssue], [], [headerIssue], [bodyIssue]),
      (error) => error instanceof ValidationError && JSON.stringify(error.issues) === JSON.stringify([pathIssue, headerIssue, bodyIssue]),
    );
  });

  it('keeps the detail list under 60 KiB by leaving out the last issues, but always reports one', () => {
    const many = payment.issues({ amount: 1, method: 'cash', service_ids: Array.from({ length: 5000 }, (_, i) => `id-${i}`) });
    assert.ok(many.length > 100 && many.length < 5000, `${many.length} issues`);
    assert.ok(jsonBytes(many) <= ECHO_BOUNDS.detailBytes, `${jsonBytes(many)} bytes`);
    assert.deepEqual(
      many.map((found) => found.loc[2]),
      many.map((_, index) => index),
    );
    const huge: ValidationIssue = { type: 'value_error', loc: ['body', 'x'], msg: 'Value error', input: 'x'.repeat(100_000) };
    const small: ValidationIssue = { type: 'missing', loc: ['body', 'y'], msg: 'Field required' };
    assert.throws(
      () => throwIfIssues([huge, small]),
      (error) => error instanceof ValidationError && error.issues.length === 1 && error.issues[0] === huge,
    );
  });
});

describe('the input a 422 echoes (ECHO_BOUNDS)', () => {
  it('echoes a string of 1000 characters whole, and one of 1001 cut with how much was left out', () => {
    const edge = 'a'.repeat(ECHO_BOUNDS.stringChars);
    assert.equal(echoInput(edge), edge);
    assert.equal(echoInput(`${edge}b`), `${edge}…+1 more characters`);
  });

  it('never cuts a string between the two halves of an emoji', () => {
    // 999 letters, then emoji: the 1000th UTF-16 unit is the first half of a pair.
    const echoed = echoInput(`${'a'.repeat(999)}${'😀'.repeat(10)}`) as string;
    assert.ok(echoed.startsWith(`${'a'.repeat(999)}…+`), echoed.slice(990));
    assert.match(echoed, /…\+\d+ more characters$/);
    // With the u flag, only half of a pair is a surrogate on its own.
    assert.doesNotMatch(echoed, /\p{Surrogate}/u);
  });

  it('echoes 256 members or items whole, and cuts the 257th with a marker saying how many were left out', () => {
    const members = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    const items = (n: number) => Array.from({ length: n }, (_, i) => i);
    assert.deepEqual(echoInput(members(256)), members(256));
    assert.deepEqual(echoInput(members(258)), { ...members(256), '…': '+2 more keys' });
    assert.deepEqual(echoInput(items(256)), items(256));
    assert.deepEqual(echoInput(items(258)), [...items(256), '…+2 more items']);
  });

  it('stops an echo at about 16 KiB of JSON, keeps a "__proto__" key a key, and cuts nesting past 16 levels', () => {
    const long = Array.from({ length: 200 }, () => 'x'.repeat(500));
    const echoed = echoInput(long) as unknown[];
    // The closing marker is added once the budget is spent, uncounted: the echo ends a few dozen bytes past it.
    assert.ok(jsonBytes(echoed) <= ECHO_BOUNDS.bytes + 64, `${jsonBytes(echoed)} bytes`);
    assert.ok(jsonBytes(echoed) > ECHO_BOUNDS.bytes - 600, `${jsonBytes(echoed)} bytes`);
    assert.match(String(echoed.at(-1)), /^…\+\d+ more items$/);

    const proto = echoInput(JSON.parse('{"__proto__":{"admin":true}}')) as object;
    assert.deepEqual(Object.keys(proto), ['__proto__']);

    let deep: unknown = 'bottom';
    for (let level = 0; level < 10_000; level++) deep = [deep];
    let echoedDeep = echoInput(deep);
    let depth = 0;
    while (Array.isArray(echoedDeep) && echoedDeep.length > 0) [echoedDeep, depth] = [echoedDeep[0], depth + 1];
    assert.deepEqual([echoedDeep, depth], [[], 16]);
  });

  it('cuts a loc string past 1000 characters, such as a communication_prefs key, as it cuts an echo', () => {
    const key = 'k'.repeat(3000);
    const found = issue(['body', 'communication_prefs', key, '[key]'], problems.stringTooLong(64), key);
    const cut = `${'k'.repeat(1000)}…+2000 more characters`;
    assert.deepEqual(found.loc, ['body', 'communication_prefs', cut, '[key]']);
    assert.equal(found.input, cut);
  });
});

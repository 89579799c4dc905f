// problems.ts: the `type`, `msg` and `ctx` of each 422 issue, exactly as pydantic v2 writes them,
// so that integrators recognise them (clinic-public-api.md §7, decisions.md §1).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problems, type Problem } from '../../../src/domain/validation/problems.js';

describe("validation problems in pydantic v2's words", () => {
  // What pydantic v2 (and so FastAPI) answers for the same failure; `ctx` absent where it gives none.
  const pydantic: [string, Problem, Problem][] = [
    ['missing', problems.missing(), { type: 'missing', msg: 'Field required' }],
    ['string_type', problems.stringType(), { type: 'string_type', msg: 'Input should be a valid string' }],
    [
      'string_too_long',
      problems.stringTooLong(128),
      { type: 'string_too_long', msg: 'String should have at most 128 characters', ctx: { max_length: 128 } },
    ],
    [
      'string_pattern_mismatch',
      problems.stringPatternMismatch('^#[0-9a-f]{6}$'),
      { type: 'string_pattern_mismatch', msg: "String should match pattern '^#[0-9a-f]{6}$'", ctx: { pattern: '^#[0-9a-f]{6}$' } },
    ],
    ['bool_parsing', problems.boolParsing(), { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }],
    [
      'int_parsing',
      problems.intParsing(),
      { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' },
    ],
    [
      'uuid_parsing',
      problems.uuidParsing('invalid length: expected 36 characters, found 3'),
      {
        type: 'uuid_parsing',
        msg: 'Input should be a valid UUID, invalid length: expected 36 characters, found 3',
        ctx: { error: 'invalid length: expected 36 characters, found 3' },
      },
    ],
    [
      'date_parsing',
      problems.dateParsing('day value is outside expected range'),
      {
        type: 'date_parsing',
        msg: 'Input should be a valid date in the format YYYY-MM-DD, day value is outside expected range',
        ctx: { error: 'day value is outside expected range' },
      },
    ],
    [
      'decimal_whole_digits',
      problems.decimalWholeDigits(8),
      {
        type: 'decimal_whole_digits',
        msg: 'Decimal input should have no more than 8 digits before the decimal point',
        ctx: { whole_digits: 8 },
      },
    ],
    ['greater_than', problems.greaterThan(0), { type: 'greater_than', msg: 'Input should be greater than 0', ctx: { gt: 0 } }],
    [
      'too_long',
      problems.tooLong('List', 20, 21),
      {
        type: 'too_long',
        msg: 'List should have at most 20 items after validation, not 21',
        ctx: { field_type: 'List', max_length: 20, actual_length: 21 },
      },
    ],
    [
      'model_attributes_type',
      problems.modelAttributesType(),
      { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
    ],
    [
      'value_error',
      problems.valueError('end_at must be after start_at'),
      { type: 'value_error', msg: 'Value error, end_at must be after start_at', ctx: { error: 'end_at must be after start_at' } },
    ],
  ];
  it('words each problem as pydantic v2 does: its type, msg and ctx', () => {
    for (const [type, problem, expected] of pydantic) assert.deepEqual(problem, expected, type);
  });

  it('gives no ctx where pydantic gives none, so a 422 item carries no empty ctx', () => {
    const withoutContext = [
      problems.missing(),
      problems.stringType(),
      problems.boolType(),
      problems.intType(),
      problems.floatType(),
      problems.decimalParsing(),
      problems.dictType(),
      problems.listType(),
      problems.stringUnicode(),
    ];
    for (const problem of withoutContext) assert.equal('ctx' in problem, false, problem.type);
  });

  it("words json_invalid as FastAPI does: a fixed msg, the parser's words in ctx.error", () => {
    assert.deepEqual(problems.jsonInvalid('Unexpected end of JSON input'), {
      type: 'json_invalid',
      msg: 'JSON decode error',
      ctx: { error: 'Unexpected end of JSON input' },
    });
  });

  it('says "1 character" at a limit of 1 and the plural from 2 on, for every counted limit', () => {
    assert.equal(problems.stringTooShort(1).msg, 'String should have at least 1 character');
    assert.equal(problems.stringTooShort(2).msg, 'String should have at least 2 characters');
    assert.equal(problems.decimalMaxPlaces(1).msg, 'Decimal input should have no more than 1 decimal place');
    assert.equal(problems.decimalMaxPlaces(2).msg, 'Decimal input should have no more than 2 decimal places');
    assert.equal(problems.decimalWholeDigits(1).msg, 'Decimal input should have no more than 1 digit before the decimal point');
    assert.equal(problems.tooLong('Dictionary', 1, 2).msg, 'Dictionary should have at most 1 item after validation, not 2');
  });

  it("lists a literal's choices as pydantic does: one alone, two joined by 'or', more by commas and a last 'or'", () => {
    const cases: [string[], string][] = [
      [['cash'], "'cash'"],
      [['reject', 'allow'], "'reject' or 'allow'"],
      [['cash', 'card', 'bank', 'other'], "'cash', 'card', 'bank' or 'other'"],
    ];
    for (const [values, expected] of cases) {
      assert.deepEqual(problems.literalError(values), { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } });
    }
  });
});

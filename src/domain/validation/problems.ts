/**
 * The pydantic v2 error types and messages integrators already know (decisions.md §1). Each
 * function returns one problem; `loc` and `input` are added where the problem is found.
 */
export interface Problem {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const problems = {
  missing: (): Problem => ({ type: 'missing', msg: 'Field required' }),
  stringType: (): Problem => ({ type: 'string_type', msg: 'Input should be a valid string' }),
  stringTooShort: (min: number): Problem => ({
    type: 'string_too_short',
    msg: `String should have at least ${plural(min, 'character')}`,
    ctx: { min_length: min },
  }),
  stringTooLong: (max: number): Problem => ({
    type: 'string_too_long',
    msg: `String should have at most ${plural(max, 'character')}`,
    ctx: { max_length: max },
  }),
  stringPatternMismatch: (pattern: string): Problem => ({
    type: 'string_pattern_mismatch',
    msg: `String should match pattern '${pattern}'`,
    ctx: { pattern },
  }),
  boolType: (): Problem => ({ type: 'bool_type', msg: 'Input should be a valid boolean' }),
  boolParsing: (): Problem => ({ type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }),
  intType: (): Problem => ({ type: 'int_type', msg: 'Input should be a valid integer' }),
  intParsing: (): Problem => ({ type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' }),
  floatType: (): Problem => ({ type: 'float_type', msg: 'Input should be a valid number' }),
  uuidParsing: (error: string): Problem => ({
    type: 'uuid_parsing',
    msg: `Input should be a valid UUID, ${error}`,
    ctx: { error },
  }),
  dateParsing: (error: string): Problem => ({
    type: 'date_parsing',
    msg: `Input should be a valid date in the format YYYY-MM-DD, ${error}`,
    ctx: { error },
  }),
  datetimeParsing: (error: string): Problem => ({
    type: 'datetime_parsing',
    msg: `Input should be a valid datetime, ${error}`,
    ctx: { error },
  }),
  decimalParsing: (): Problem => ({ type: 'decimal_parsing', msg: 'Input should be a valid decimal' }),
  decimalMaxPlaces: (places: number): Problem => ({
    type: 'decimal_max_places',
    msg: `Decimal input should have no more than ${plural(places, 'decimal place')}`,
    ctx: { decimal_places: places },
  }),
  decimalWholeDigits: (digits: number): Problem => ({
    type: 'decimal_whole_digits',
    msg: `Decimal input should have no more than ${plural(digits, 'digit')} before the decimal point`,
    ctx: { whole_digits: digits },
  }),
  greaterThan: (gt: number): Problem => ({ type: 'greater_than', msg: `Input should be greater than ${gt}`, ctx: { gt } }),
  greaterThanEqual: (ge: number): Problem => ({
    type: 'greater_than_equal',
    msg: `Input should be greater than or equal to ${ge}`,
    ctx: { ge },
  }),
  lessThanEqual: (le: number): Problem => ({
    type: 'less_than_equal',
    msg: `Input should be less than or equal to ${le}`,
    ctx: { le },
  }),
  literalError: (values: readonly string[]): Problem => {
    const quoted = values.map((v) => `'${v}'`);
    const expected = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : (quoted[0] ?? '');
    return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
  },
  dictType: (): Problem => ({ type: 'dict_type', msg: 'Input should be a valid dictionary' }),
  listType: (): Problem => ({ type: 'list_type', msg: 'Input should be a valid list' }),
  tooLong: (fieldType: 'List' | 'Dictionary', max: number, actual: number): Problem => ({
    type: 'too_long',
    msg: `${fieldType} should have at most ${plural(max, 'item')} after validation, not ${actual}`,
    ctx: { field_type: fieldType, max_length: max, actual_length: actual },
  }),
  stringUnicode: (): Problem => ({
    type: 'string_unicode',
    msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
  }),
  modelAttributesType: (): Problem => ({
    type: 'model_attributes_type',
    msg: 'Input should be a valid dictionary or object to extract fields from',
  }),
  jsonInvalid: (error: string): Problem => ({ type: 'json_invalid', msg: 'JSON decode error', ctx: { error } }),
  valueError: (error: string): Problem => ({ type: 'value_error', msg: `Value error, ${error}`, ctx: { error } }),
} as const;

// json-error-position.ts: the position a 422 json_invalid names in its loc, ["body", <position>]:
// the index of the first character a JSON parser cannot take (docs/design-choices.md, "Fields and bodies").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonErrorPosition } from '../../../src/domain/validation/json-error-position.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const FC_OPTIONS = { numRuns: RUNS, ...(process.env.TEST_SEED ? { seed: Number(process.env.TEST_SEED) } : {}) };

describe('the position of a JSON syntax error', () => {
  const cases: [string, number][] = [
    ['{"a":}', 5],
    ['{"a":1,}', 7],
    ['{"a" 1}', 5],
    ['{"a":1 "b":2}', 7],
    ['{1:2}', 1],
    ["{'a':1}", 1],
    ['{,}', 1],
    ['[1,]', 3],
    ['[,1]', 1],
    ['[1 2]', 3],
    ['[1]x', 3],
    ['1 2', 2],
    ['}', 0],
    ['True', 0],
    ['nul}', 3],
    ['{"a":[1,{"b":nul}]}', 16],
    ['01', 1],
    ['-01', 2],
    ['"a\nb"', 2],
    ['{"a":"\\x"}', 7],
    // JSON has no byte order mark; JSON.parse refuses one too.
    ['\ufeff{}', 0],
  ];
  it('is the first character a parser cannot take', () => {
    for (const [text, position] of cases) {
      assert.throws(() => JSON.parse(text), SyntaxError, JSON.stringify(text));
      assert.equal(jsonErrorPosition(text), position, JSON.stringify(text));
    }
  });

  it("is the text's length when the text ends too early", () => {
    for (const text of ['', '   ', '{', '[', '{"a":[1,2', '{"a"', '{"a":', '"abc', '"abc\\', 'tru', '[1,\n']) {
      assert.equal(jsonErrorPosition(text), text.length, JSON.stringify(text));
    }
  });

  it('counts the characters before the error, line ends included, so a client can find its line and column', () => {
    const text = '{\n  "first_name": "Ada",\n  "last_name": ,\n  "email": "a@b"\n}';
    const position = jsonErrorPosition(text);
    const before = text.slice(0, position).split('\n');
    assert.deepEqual({ line: before.length, column: before.at(-1)!.length + 1 }, { line: 3, column: 16 });
  });

  it('counts characters, not UTF-8 bytes, past accented names', () => {
    const text = '{"last_name":"Müller-Lüdenscheidt",}';
    assert.equal(jsonErrorPosition(text), text.length - 1);
  });

  it('reaches the end of any valid JSON text, and places a stray character just past its last value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        assert.equal(jsonErrorPosition(text), text.length);
        assert.equal(jsonErrorPosition(`${text} @`), text.length + 1);
      }),
      FC_OPTIONS,
    );
  });

  it('scans 1,000,000 open brackets without overflowing the stack', () => {
    const deep = '['.repeat(1_000_000);
    assert.equal(jsonErrorPosition(deep), 1_000_000);
    assert.equal(jsonErrorPosition(`${deep}}`), 1_000_000);
  });
});

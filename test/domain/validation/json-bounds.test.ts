// json-bounds.ts: the bounds a JSON body must stay within before it is parsed (200 levels of
// nesting, 1000 members in an object, 100,000 values), refused where the text passes them
// (docs/design-choices.md, "Hostile JSON bodies").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSON_BOUNDS, jsonBoundsBreach } from '../../../src/domain/validation/json-bounds.js';

/** `{"k0":0,"k1":0,…}` with `count` members. */
const objectOf = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`;
/** `[item,item,…]` with `count` items. */
const listOf = (count: number, item = '0') => `[${Array(count).fill(item).join(',')}]`;

describe('the bounds of a JSON body', () => {
  it('takes nesting 200 deep and refuses the 201st level at its opening bracket', () => {
    assert.equal(JSON_BOUNDS.depth, 200);
    const nested = (levels: number) => '{"a":['.repeat(levels / 2) + ']}'.repeat(levels / 2);
    assert.equal(jsonBoundsBreach(nested(200)), undefined);
    const deeper = `${'['.repeat(201)}${']'.repeat(201)}`;
    assert.deepEqual(jsonBoundsBreach(deeper), { position: 200, error: 'nesting is deeper than 200 levels' });
    // Objects and lists alike: the 201st level is the `{` of the 101st `{"a":[`.
    assert.deepEqual(jsonBoundsBreach(nested(202)), { position: 6 * 100, error: 'nesting is deeper than 200 levels' });
  });

  it('takes an object of 1000 members and refuses the 1001st at the quote of its key', () => {
    assert.equal(jsonBoundsBreach(objectOf(1000)), undefined);
    const over = objectOf(1001);
    assert.deepEqual(jsonBoundsBreach(over), { position: over.indexOf('"k1000"'), error: 'an object has more than 1000 members' });
  });

  it('counts the members of each object apart: siblings and nested objects of 1000 members each pass', () => {
    assert.equal(jsonBoundsBreach(`[${objectOf(1000)},${objectOf(1000)}]`), undefined);
    const inner = objectOf(1000);
    assert.equal(jsonBoundsBreach(`{"a":${inner},${objectOf(999).slice(1)}`), undefined);
  });

  it('takes 100,000 values and refuses the 100,001st where it starts, counting members, items, the top level and no empty container', () => {
    // The top-level list and its items.
    assert.equal(jsonBoundsBreach(listOf(99_999)), undefined);
    const over = listOf(100_000);
    assert.deepEqual(jsonBoundsBreach(over), { position: over.length - 2, error: 'the body has more than 100000 values' });
    // Each item an object of one member: two values apiece.
    assert.equal(jsonBoundsBreach(listOf(49_999, '{"k":0}')), undefined);
    assert.equal(jsonBoundsBreach(listOf(50_000, '{"k":0}'))?.error, 'the body has more than 100000 values');
    // An empty list or object is one value, with nothing inside it.
    assert.equal(jsonBoundsBreach(listOf(99_999, '[]')), undefined);
    assert.equal(jsonBoundsBreach(listOf(99_999, '{}')), undefined);
  });

  it('counts nothing inside a string, escaped quotes and backslashes included', () => {
    const brackets = '['.repeat(300);
    assert.equal(jsonBoundsBreach(`["${brackets}"]`), undefined);
    assert.equal(jsonBoundsBreach(`["\\"${brackets}", "\\\\\\"${brackets}"]`), undefined);
    // A string ending in an escaped backslash ends at its quote: the brackets after it are text too.
    assert.equal(jsonBoundsBreach(`{"k":"\\\\","x":"${brackets}"}`), undefined);
    const commas = ','.repeat(200_000);
    assert.equal(jsonBoundsBreach(`{"a":"${commas}"}`), undefined);
  });

  it('leaves a text malformed before it passes a bound to the parser, which reports it where it is malformed', () => {
    assert.equal(jsonBoundsBreach(`{"x":1 ${objectOf(2000).slice(1)}`), undefined);
    assert.equal(jsonBoundsBreach(`${'['.repeat(100)}x${'['.repeat(200)}`), undefined);
    assert.equal(jsonBoundsBreach(`["never closed ${'['.repeat(300)}`), undefined);
  });
});

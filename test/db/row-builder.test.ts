// rowBuilder (src/db/row-builder.ts): a row's object made from the array a statement read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowBuilder } from '../../src/db/row-builder.js';

describe('a row builder', () => {
  it('keys each value by its column, in the order given, whatever a column is named', () => {
    const rowOf = rowBuilder<Record<string, unknown>>(['seq', 'first_name', 'odd "name"', 'notes']);
    assert.deepStrictEqual(rowOf([1, 'Ada', 'x', null]), { seq: 1, first_name: 'Ada', 'odd "name"': 'x', notes: null });
    assert.deepStrictEqual(Object.keys(rowOf([2, 'Grace', 'y', 'z'])), ['seq', 'first_name', 'odd "name"', 'notes']);
  });

  it('gives each row an object of its own', () => {
    const rowOf = rowBuilder<{ seq: number }>(['seq']);
    const first = rowOf([1]);
    assert.notEqual(rowOf([1]), first);
    assert.equal(first.seq, 1);
  });
});

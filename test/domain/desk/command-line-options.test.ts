// src/domain/desk/command-line-options.ts: rewriting a desk command line (clinic-api-1.3.md, "Commands on a desk PC").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rewriteOptions, withOption, type TypedOption } from '../../../src/domain/desk/command-line-options.js';

// A desk command line walked once, on the desk PC and on the server (clinic-api-1.3.md, "Commands
// on a desk PC"): `--data` dropped or replaced, `--idempotency-key` added, a file option's path
// rewritten, each written as it was typed and never after `--`.

const drop = () => [];
const keep = (option: TypedOption) => option.words;

describe('rewriting a desk command line', () => {
  it('finds an option typed as two words or as one with =, and keeps every other word in place', () => {
    const seen: [string, string | undefined, readonly string[]][] = [];
    const line = ['patient', 'find', '--data', '/srv/clinic', 'Müller', '--data=/srv/other', '--json'];
    const kept = rewriteOptions(line, ['data'], (option) => {
      seen.push([option.name, option.value, option.words]);
      return option.words;
    });
    assert.deepEqual(kept, line);
    assert.deepEqual(seen, [
      ['data', '/srv/clinic', ['--data', '/srv/clinic']],
      ['data', '/srv/other', ['--data=/srv/other']],
    ]);
    assert.deepEqual(rewriteOptions(line, ['data'], drop), ['patient', 'find', 'Müller', '--json']);
  });

  it('changes a value as it was typed: two words stay two, one stays one, an empty one included', () => {
    const line = ['document', 'save', 'D-17', '--file', 'scan.pdf', '--to=', '--force'];
    const saved = rewriteOptions(line, ['file', 'to'], (option) => option.withValue(`/home/maria/${option.value}`));
    assert.deepEqual(saved, ['document', 'save', 'D-17', '--file', '/home/maria/scan.pdf', '--to=/home/maria/', '--force']);
  });

  it('touches nothing after --, where words are no options, and no option that merely starts with the name', () => {
    const line = ['patient', 'find', '--database', 'x', '--', '--data', 'Müller'];
    assert.deepEqual(rewriteOptions(line, ['data'], drop), line);
  });

  it('gives no value to an option that ends the line, so that commander says it is missing', () => {
    let value: string | undefined = 'unset';
    const line = rewriteOptions(['audit', 'export', '--fhir'], ['fhir'], (option) => {
      value = option.value;
      return keep(option);
    });
    assert.deepEqual([line, value], [['audit', 'export', '--fhir'], undefined]);
  });

  it('adds an option at the end of the options, before any --', () => {
    assert.deepEqual(withOption(['record-payment', '--invoice', 'INV-1'], '--idempotency-key', 'k-1'), [
      'record-payment',
      '--invoice',
      'INV-1',
      '--idempotency-key',
      'k-1',
    ]);
    assert.deepEqual(withOption(['patient', 'find', '--', '-Müller'], '--data', '/srv/clinic'), [
      'patient',
      'find',
      '--data',
      '/srv/clinic',
      '--',
      '-Müller',
    ]);
  });
});

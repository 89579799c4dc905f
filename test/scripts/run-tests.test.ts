import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROGRAM_STARTERS, startsTheProgram } from '../../scripts/run-tests.mjs';

// The executables' runs (scripts/test-dist.mjs) take the test files that start the program, known
// by the helpers they name (PROGRAM_STARTERS): a helper that starts it and is missing from that
// list would silently take its files out of test:dist and test:wine.

const HELPERS = join(import.meta.dirname, '../helpers');

/** Each exported function of test/helpers, by name, with its code (comments left out). */
function exportedHelpers(): Map<string, string> {
  const helpers = new Map<string, string>();
  for (const file of readdirSync(HELPERS).filter((name) => name.endsWith('.ts'))) {
    const code = readFileSync(join(HELPERS, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    // A line that starts with a letter starts the next declaration.
    for (const part of code.split(/\n(?=[A-Za-z])/)) {
      const declared = /^export (?:async )?function (\w+)/.exec(part);
      if (declared) helpers.set(declared[1]!, part.slice(declared[0].length));
    }
  }
  return helpers;
}

describe('the helpers that start the program (scripts/run-tests.mjs)', () => {
  const helpers = exportedHelpers();

  it('names every exported helper that calls one of them', () => {
    const missing = [...helpers]
      .filter(
        ([name, code]) => !PROGRAM_STARTERS.includes(name) && PROGRAM_STARTERS.some((starter) => new RegExp(`\\b${starter}\\b`).test(code)),
      )
      .map(([name]) => name);
    assert.deepEqual(missing, []);
  });

  it('names only exported helpers', () => {
    assert.deepEqual(
      PROGRAM_STARTERS.filter((name) => !helpers.has(name)),
      [],
    );
  });

  it('takes a desk file that runs clinic, and leaves one that tests a module in process', () => {
    assert.equal(startsTheProgram('test/cli/commands/patient.test.ts'), true);
    assert.equal(startsTheProgram('test/cli/desk-format.test.ts'), false);
  });
});

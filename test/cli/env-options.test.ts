// An option of `serve` or `upload-document`, else its environment variable (src/cli/env-options.ts): how an IT person configures a service (docs, "Configuration"), and the document limit of decisions.md §1 (413 DOCUMENT_TOO_LARGE, default 25 MiB).
import assert from 'node:assert/strict';
import { Command, InvalidArgumentError } from 'commander';
import { afterEach, describe, it } from 'node:test';
import { optionOrEnv, parseMegabytes, resolveDocumentLimitBytes } from '../../src/cli/env-options.js';

/** `clinic serve` as commander gives it to an action: a usage error is thrown (exitOverride) instead of ending the test, and said nowhere. */
const serveCommand = () => new Command('serve').exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });

const VARIABLE = 'CLINIC_DOCUMENT_LIMIT_MB';

describe('options else their environment variables (env-options)', () => {
  const saved = process.env[VARIABLE];
  afterEach(() => {
    if (saved === undefined) delete process.env[VARIABLE];
    else process.env[VARIABLE] = saved;
  });

  it('takes the option given over the variable, which is then not even read', () => {
    process.env[VARIABLE] = 'not a number';
    assert.equal(resolveDocumentLimitBytes(serveCommand(), 2), 2 * 1024 * 1024);
    assert.equal(
      optionOrEnv(serveCommand(), 'given', VARIABLE, () => assert.fail('the variable was parsed'), 'fallback'),
      'given',
    );
  });

  it('reads the variable as the option is read, and an empty one as none: the default 25 MiB', () => {
    process.env[VARIABLE] = '1.5';
    assert.equal(resolveDocumentLimitBytes(serveCommand(), undefined), 1_572_864);
    process.env[VARIABLE] = '';
    assert.equal(resolveDocumentLimitBytes(serveCommand(), undefined), 25 * 1024 * 1024);
    delete process.env[VARIABLE];
    assert.equal(resolveDocumentLimitBytes(serveCommand(), undefined), 26_214_400);
  });

  it('stops on a bad variable with a usage error (exit 2) that names it and says what it expects', () => {
    process.env[VARIABLE] = '0';
    assert.throws(() => resolveDocumentLimitBytes(serveCommand(), undefined), {
      exitCode: 2,
      message: `error: ${VARIABLE}: expected a positive number`,
    });
    // Any parser's refusal is said so, not only commander's own kind.
    process.env[VARIABLE] = 'x';
    assert.throws(
      () =>
        optionOrEnv(
          serveCommand(),
          undefined,
          VARIABLE,
          () => {
            throw new Error('not a port');
          },
          0,
        ),
      { exitCode: 2, message: `error: ${VARIABLE}: not a port` },
    );
  });

  it('takes a --document-limit-mb of plain positive digits only, a fraction included', () => {
    assert.deepEqual(
      ['25', '0.5', '1.25', '100000'].map((text) => parseMegabytes(text)),
      [25, 0.5, 1.25, 100_000],
    );
    for (const text of ['0', '0.0', '-1', '1e3', '0x10', ' 5', '5 ', '5.', '.5', '', 'Infinity', '25MB']) {
      assert.throws(() => parseMegabytes(text), InvalidArgumentError, JSON.stringify(text));
    }
  });
});

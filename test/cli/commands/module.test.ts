// `clinic module enable|disable|list` (src/cli/commands/module.ts): the billing and payments modules, switched at the desk and applied at once (decisions.md §2; clinic-api-1.3.md, rows 5 and 19).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forPeople, jsonOf, refusalOf } from '../../helpers/desk-output.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';

describe('clinic module', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

  it('lists both modules, on in a new clinic, as a table for people and as JSON', async () => {
    assert.equal(forPeople(await clinic('module', 'list')), 'module    enabled\nbilling   true\npayments  true\n');
    assert.deepEqual(jsonOf(await clinic('module', 'list', '--json')), [
      { module: 'billing', enabled: true },
      { module: 'payments', enabled: true },
    ]);
  });

  it('switches a module off and on again, saying so, and the next command finds it so', async () => {
    assert.equal(forPeople(await clinic('module', 'disable', 'billing')), 'module billing disabled\n');
    const refused = refusalOf(await clinic('invoice', 'list', '--json'));
    assert.equal(refused.code, 'MODULE_DISABLED');
    assert.match((await clinic('invoice', 'list')).stderr, /^error: MODULE_DISABLED: .*\nhint: `clinic module enable NAME` switches it on/);
    // Switched off twice is still off, and says so.
    assert.deepEqual(jsonOf(await clinic('module', 'disable', 'billing', '--json')), { module: 'billing', enabled: false });
    assert.equal(forPeople(await clinic('module', 'enable', 'billing')), 'module billing enabled\n');
    assert.equal((await clinic('invoice', 'list')).code, 0);
    assert.deepEqual(jsonOf(await clinic('module', 'list', '--json')), [
      { module: 'billing', enabled: true },
      { module: 'payments', enabled: true },
    ]);
  });

  it('switches only the module named', async () => {
    assert.deepEqual(jsonOf(await clinic('module', 'disable', 'payments', '--json')), { module: 'payments', enabled: false });
    assert.deepEqual(jsonOf(await clinic('module', 'list', '--json')), [
      { module: 'billing', enabled: true },
      { module: 'payments', enabled: false },
    ]);
    assert.equal(forPeople(await clinic('module', 'enable', 'payments')), 'module payments enabled\n');
  });

  it('refuses a module that is none, offering the one meant and the choices (exit 1); no module named is usage (exit 2)', async () => {
    const mistyped = await clinic('module', 'disable', 'Billing');
    assert.equal(mistyped.code, 1);
    assert.match(
      mistyped.stderr,
      /<module> "Billing": is not one of the choices \(literal_error\)\n +hint: did you mean billing\? one of: billing, payments\n/,
    );
    // --json: the 422 body the API gives a value it refuses.
    const invalid = await clinic('module', 'enable', 'reminders', '--json');
    assert.equal(invalid.code, 1);
    assert.deepEqual(JSON.parse(invalid.stderr), {
      detail: [
        {
          type: 'literal_error',
          loc: ['body', 'module'],
          msg: "Input should be 'billing' or 'payments'",
          input: 'reminders',
          ctx: { expected: "'billing' or 'payments'" },
        },
      ],
    });
    const missing = await clinic('module', 'enable');
    assert.deepEqual([missing.code, missing.stderr.split('\n')[0]], [2, "error: missing required argument 'module'"]);
    assert.deepEqual(jsonOf(await clinic('module', 'list', '--json')), [
      { module: 'billing', enabled: true },
      { module: 'payments', enabled: true },
    ]);
  });
});

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';

// Issue 39, M3 at the desk: a refund can leave a patient owing in two currencies; `patient find`
// and `patient show` printed one of them and `clinic check` saw nothing. Real CLI processes, as
// the front desk types the commands.

interface CheckReport {
  ok: boolean;
  checks: { name: string; status: string; findings: string[] }[];
}

describe('M3 at the desk: what a patient owes in two currencies (issue 39)', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const ok = (result: CliResult) => {
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  const invoiceNumberOf = (json: string) => (JSON.parse(json) as { invoice_number: string }).invoice_number;
  /** The yen invoice's number. */
  let yen: string;

  before(async () => {
    // The fixture's story (test/fixtures/release-1.2.0): 40.00 EUR paid, 4000.00 JPY issued, the
    // EUR payment refunded whole; and a patient who owes in one currency beside it.
    ok(
      await clinic('create-patient', '--first-name', 'Jürgen', '--last-name', 'Zweifel', '--email', 'jz@example.org', '--mobile', '0664 1'),
    );
    ok(await clinic('create-patient', '--first-name', 'Eva', '--last-name', 'Zweig', '--email', 'ez@example.org', '--mobile', '0664 2'));
    const euro = invoiceNumberOf(ok(await clinic('invoice', 'create', '--patient-id', 'P-1', '--total', '40.00', '--json')));
    ok(await clinic('record-payment', '--invoice', euro, '--amount', '40.00', '--method', 'cash'));
    yen = invoiceNumberOf(
      ok(await clinic('invoice', 'create', '--patient-id', 'P-1', '--total', '4000.00', '--currency', 'JPY', '--json')),
    );
    ok(await clinic('refund', '--invoice', euro, '--reason', 'Doppelt kassiert'));
    ok(await clinic('invoice', 'create', '--patient-id', 'P-2', '--total', '85.50'));
  });

  it('patient show prints every currency owed, within 100 columns', async () => {
    const text = ok(await clinic('patient', 'show', 'P-1'));
    assert.match(text, /^Owes +40\.00 EUR \+ 4000\.00 JPY$/m);
    for (const line of text.split('\n')) assert.ok(line.length <= 100, line);
    assert.match(ok(await clinic('patient', 'show', 'P-2')), /^Owes +85\.50 EUR$/m, 'one currency: as before');
  });

  it('patient find prints every currency owed in its Owes column, within 100 columns', async () => {
    const text = ok(await clinic('patient', 'find', 'zwei'));
    const lines = text.split('\n');
    assert.match(lines.find((line) => line.startsWith('P-000001')) ?? '', / 40\.00 EUR \+ 4000\.00 JPY$/);
    assert.match(lines.find((line) => line.startsWith('P-000002')) ?? '', /Zweig, Eva .* 85\.50 EUR$/);
    for (const line of lines) assert.ok(line.length <= 100, line);
    const json = JSON.parse(ok(await clinic('patient', 'find', 'zweifel', '--json'))) as { outstanding_balances: unknown }[];
    assert.deepEqual(json[0]?.outstanding_balances, [
      { currency: 'EUR', amount: '40.00' },
      { currency: 'JPY', amount: '4000.00' },
    ]);
  });

  it('clinic check names the patient as a note, and still passes (exit 0)', async () => {
    const result = await clinic('check', '--json');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const report = JSON.parse(result.stdout) as CheckReport;
    assert.equal(report.ok, true);
    assert.deepEqual(report.checks.at(-1), {
      name: 'balances_in_several_currencies',
      description: 'patients who owe in more than one currency (a refund reopened an invoice): a note for the front desk, not a fault',
      status: 'note',
      findings: ['P-000001 owes 40.00 EUR + 4000.00 JPY'],
    });
    for (const other of report.checks.slice(0, -1)) assert.equal(other.status, 'ok', other.name);

    const forPeople = ok(await clinic('check'));
    assert.match(forPeople, /^NOTE {5}balances_in_several_currencies: .*\n {9}- P-000001 owes 40\.00 EUR \+ 4000\.00 JPY$/m);
  });

  it('clinic check says nothing once the patient owes in one currency again', async () => {
    ok(await clinic('record-payment', '--invoice', yen, '--amount', '4000.00', '--method', 'bank'));
    const report = JSON.parse(ok(await clinic('check', '--json'))) as CheckReport;
    assert.deepEqual(report.checks.at(-1)?.status, 'ok');
    assert.match(ok(await clinic('patient', 'show', 'P-1')), /^Owes +40\.00 EUR$/m);
  });
});

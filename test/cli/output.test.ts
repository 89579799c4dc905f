// How a desk command prints what it made or read (src/cli/output.ts): the API's JSON with --json, else plain tables and records for people (decisions.md §8), never a stored character a terminal would obey (style.md §14).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/io.js';
import { emit, formatRecord, formatTable } from '../../src/cli/output.js';

/** A desk's output captured: what reaches stdout, in order. */
function capturedIo(): CliIo & { printed: string[] } {
  const printed: string[] = [];
  return { printed, stdout: (text) => printed.push(text), stderr: () => {}, isTty: false, stderrColumns: async () => undefined };
}

describe('desk printouts (output)', () => {
  it('prints a table with a header, columns padded to the widest cell two spaces apart, and no trailing spaces', () => {
    const rows = [
      { module: 'billing', enabled: true, since: null },
      { module: 'payments', enabled: false, since: { by: 'it' } },
    ];
    assert.equal(
      formatTable(rows, ['module', 'enabled', 'since']),
      'module    enabled  since\nbilling   true\npayments  false    {"by":"it"}\n',
    );
  });

  it('says (none) for an empty list rather than a bare header', () => {
    assert.equal(formatTable([], ['id', 'name']), '(none)\n');
  });

  it('keeps each row on one line: line breaks and runs of white space in a value are one space, controls shown as escapes', () => {
    const table = formatTable([{ name: 'Dr.\n  Grey', note: 'paid\r\x1b[2Jcash' }], ['name', 'note']);
    assert.equal(table, 'name      note\nDr. Grey  paid \\x1b[2Jcash\n');
  });

  it('prints a record as key and value lines, leaving out what has no value, keys padded to the longest shown', () => {
    assert.equal(
      formatRecord({ id: 'k1', name: 'Empfang', revoked_at: null, rate_limit_per_minute: undefined, scopes: ['a', 'b'], on: false }),
      'id      k1\nname    Empfang\nscopes  ["a","b"]\non      false\n',
    );
  });

  it("prints --json as the API's body, two-space indented, a stored escape sequence inert but the same value", () => {
    const io = capturedIo();
    const patient = { first_name: 'Ada\x1b]52;c;bad\x07', last_name: 'Lovelace\u202e' };
    emit(io, { json: true }, patient, () => assert.fail('the printout for people is not made for --json'));
    assert.equal(io.printed.length, 1);
    const printed = io.printed[0]!;
    assert.deepEqual(JSON.parse(printed), patient, 'a JSON reader gets the stored values');
    // Nothing a terminal would obey: each control written as JSON's own escape.
    assert.equal(printed, '{\n  "first_name": "Ada\\u001b]52;c;bad\\u0007",\n  "last_name": "Lovelace\\u202e"\n}\n');
  });

  it('prints the printout for people with its own line breaks, any other control shown visibly', () => {
    const io = capturedIo();
    emit(io, {}, { name: 'x' }, () => 'Patient P-000001 Ada\x1b[31m\nBalance  0.00 EUR\n');
    assert.deepEqual(io.printed, ['Patient P-000001 Ada\\x1b[31m\nBalance  0.00 EUR\n']);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useTestServer } from '../helpers/fixtures.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';
import { buildPatient } from '../helpers/builders.js';

/**
 * Stored text from a hostile integration reaches the desk's terminal as text, never as commands
 * to the terminal (issue 25, item 3; style.md §14): people's output shows escapes visibly,
 * --json keeps every stored value exactly.
 */

const ESC = '\u001b';
/** What an integration with a key stored, each a way to rewrite what the desk sees. */
const HOSTILE = {
  colour: `Red${ESC}[31m`,
  clipboard: `Clip${ESC}]52;c;ZWNobyBoaQ==\u0007`,
  overwrite: `Up${ESC}[1A${ESC}[2K\r`,
  bidi: 'Right\u202eTFEL',
  csi8bit: 'Csi\u009b2J',
  title: `T${ESC}[2J${ESC}[HCLEARED`,
};

/** Anything a terminal obeys instead of printing, but the line feeds a printout is made of. */
const TERMINAL_CONTROL = /(?!\n)[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function printed(result: CliResult): string {
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stdout, TERMINAL_CONTROL, `a control character reached the terminal: ${JSON.stringify(result.stdout)}`);
  return result.stdout;
}

describe('stored text on its way to the desk', () => {
  const server = useTestServer();
  const clinic = (...args: string[]) => runClinic([...args, '--data', server.dataDir]);

  it('patient find, patient show, appointment show and list show escapes visibly, and --json keeps the stored values', async () => {
    const created = await server.request('POST', '/patients', {
      body: buildPatient({
        first_name: `Eve ${HOSTILE.colour} ${HOSTILE.bidi}`,
        last_name: `Mallory ${HOSTILE.clipboard} ${HOSTILE.overwrite} ${HOSTILE.csi8bit}`,
        notes: `line one\nline two ${ESC}[2J ${HOSTILE.bidi}`,
      }),
    });
    assert.equal(created.status, 201, created.text);
    const patient = created.body as { id: string; patient_number: string; first_name: string; last_name: string; notes: string };
    // A name loses its bidi controls at the door (issue 39, L5); a note keeps them.
    assert.equal(patient.first_name, `Eve ${HOSTILE.colour} RightTFEL`);
    const booked = await server.request('POST', '/appointments', {
      body: { patient_id: patient.id, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30Z', title: HOSTILE.title },
    });
    assert.equal(booked.status, 201, booked.text);
    const appointment = booked.body as { appointment_number: string };

    const found = printed(await clinic('patient', 'find', 'eve'));
    assert.match(found, /Mallory Clip\\x1b\]52;c;/);
    const shown = printed(await clinic('patient', 'show', patient.patient_number));
    assert.match(shown, /Eve Red\\x1b\[31m RightTFEL Mallory Clip\\x1b\]52;c;ZWNobyBoaQ==\\x07 Up\\x1b\[1A\\x1b\[2K/);
    assert.match(shown, /line one line two \\x1b\[2J Right\\u202eTFEL/);
    assert.match(printed(await clinic('appointment', 'show', appointment.appointment_number)), /T\\x1b\[2J\\x1b\[HCLEARED/);
    assert.match(printed(await clinic('appointment', 'list', '--date', '2026-12-01')), /Eve Red\\x1b\[31m RightTFEL/);

    const asJson = await clinic('patient', 'show', patient.patient_number, '--json');
    assert.doesNotMatch(asJson.stdout, TERMINAL_CONTROL, 'raw control characters in --json output');
    const record = (JSON.parse(printed(asJson)) as { patient: { first_name: string; last_name: string; notes: string } }).patient;
    assert.equal(record.first_name, patient.first_name);
    assert.equal(record.last_name, patient.last_name);
    assert.equal(record.notes, patient.notes);
    const titled = JSON.parse(printed(await clinic('appointment', 'show', appointment.appointment_number, '--json'))) as { title: string };
    assert.equal(titled.title, HOSTILE.title);
  });

  it('an error message that repeats typed text shows its control characters visibly', async () => {
    const result = await clinic('appointment', 'list', '--doctor', `Dr. ${ESC}]0;owned\u0007Who`);
    assert.equal(result.code, 1, result.stderr);
    assert.doesNotMatch(result.stderr, TERMINAL_CONTROL, JSON.stringify(result.stderr));
    assert.match(result.stderr, /Dr\. \\x1b\]0;owned\\x07Who/);
  });
});

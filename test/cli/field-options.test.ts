// The desk's options made from the API's fields, and the desk's spellings read as the API's values (decisions.md §8; clinic-api-1.2.md, "The desk's corrections": "any 2.1 field as an option").
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { Command, CommanderError } from 'commander';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { field } from '../../src/fields/field-spec.js';
import { PAYMENT_INPUT_FIELDS } from '../../src/fields/billing-fields.js';
import { addFieldOptions, fieldArgument, fieldLabels, optionFlag, readFieldOptions } from '../../src/cli/field-options.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/thrown.js';

/** A command that throws instead of exiting, and prints nothing. */
const quietCommand = (name = 'example') =>
  new Command(name).exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });

/** The options `argv` gives `command`, as its action would receive them. */
function parsed(command: Command, argv: string[]): Record<string, unknown> {
  command.parse(argv, { from: 'user' });
  return command.opts();
}

/** An option's flags and help line, by its long flag. */
const optionLine = (command: Command, flag: string) => {
  const option = command.options.find((candidate) => candidate.long === flag);
  return option === undefined ? undefined : `${option.flags}: ${option.description}`;
};

const DESK_FIELDS = [
  field.date('date_of_birth', { nullable: true }),
  field.date('recall_date', { nullable: true }),
  field.datetime('start_at'),
  field.boolean('reminders_opt_out'),
  field.integer('recall_contact_count'),
  field.stringListMap('communication_prefs', { nullable: true, maxKeys: 8, maxKeyLength: 32, maxItems: 8, maxItemLength: 32 }),
] as const;

describe('field options', () => {
  const data = useTestDatabase({ each: true });
  afterEach(() => mock.timers.reset());

  it('name each option after its field, with what its value looks like and how to write it', () => {
    assert.equal(optionFlag('first_name'), '--first-name');
    const command = addFieldOptions(quietCommand(), [...PAYMENT_INPUT_FIELDS, ...DESK_FIELDS]);
    assert.equal(
      optionLine(command, '--amount'),
      '--amount <amount>: Amount paid, at most the invoice balance; e.g. 85.50 or 85,50; with thousands 1.234,50',
    );
    assert.equal(optionLine(command, '--method'), '--method <cash|card|bank|other>: How it was paid');
    assert.match(optionLine(command, '--date-of-birth')!, /^--date-of-birth <date>: .*a date: 30\.11\.2026, 2026-11-30, today or tomorrow/);
    assert.match(optionLine(command, '--start-at')!, /^--start-at <time>: .*clinic time: "30\.11\.2026 10:00"/);
    assert.match(optionLine(command, '--reminders-opt-out')!, /^--reminders-opt-out \[true\|false\]: /);
    assert.match(optionLine(command, '--communication-prefs')!, /^--communication-prefs <json>: .*as JSON$/);
    assert.match(optionLine(command, '--note')!, /^--note <text>: Recommended when method is other; up to 500 characters$/);
  });

  it('make a required field a required option: missing, it is a usage error', () => {
    const command = addFieldOptions(quietCommand(), PAYMENT_INPUT_FIELDS);
    const missing = thrownBy(() => parsed(command, ['--amount', '10']));
    assert.ok(missing instanceof CommanderError, `a usage error, not ${String(missing)}`);
    assert.equal(missing.code, 'commander.missingMandatoryOptionValue');
    assert.match(missing.message, /--method <cash\|card\|bank\|other>/);
  });

  it('leave a required field optional where the command takes it from elsewhere, saying so in the help', () => {
    const command = addFieldOptions(quietCommand(), PAYMENT_INPUT_FIELDS, {
      enforceRequired: false,
      requiredElsewhere: 'unless in --file',
    });
    assert.deepEqual(parsed(command, ['--amount', '10']), { amount: '10' });
    assert.match(optionLine(command, '--method')!, /How it was paid \(required unless in --file\)$/);
  });

  it('read the desk’s amounts, choices, numbers and yes or no as the API’s values', () => {
    const command = addFieldOptions(quietCommand(), [...PAYMENT_INPUT_FIELDS, ...DESK_FIELDS], { enforceRequired: false });
    const options = parsed(command, ['--amount', '1.234,50', '--method', 'Card', '--reminders-opt-out', '--recall-contact-count', '12']);
    assert.deepEqual(readFieldOptions(options, [...PAYMENT_INPUT_FIELDS, ...DESK_FIELDS], data.db), {
      amount: '1234.50',
      method: 'card',
      reminders_opt_out: true,
      recall_contact_count: 12,
    });
    const others = parsed(addFieldOptions(quietCommand(), DESK_FIELDS), [
      '--reminders-opt-out',
      'false',
      '--recall-contact-count',
      'twelve',
      '--communication-prefs',
      '{"email":["invoices"]}',
    ]);
    assert.deepEqual(readFieldOptions(others, DESK_FIELDS, data.db), {
      reminders_opt_out: false,
      // Not a number: passed on as typed, for the API's own refusal.
      recall_contact_count: 'twelve',
      communication_prefs: { email: ['invoices'] },
    });
    assert.deepEqual(readFieldOptions({ amount: '85,50', method: 'cheque' }, PAYMENT_INPUT_FIELDS, data.db), {
      amount: '85.50',
      method: 'cheque',
    });
  });

  it("read the desk's dates as ISO dates, a two-digit year of birth in the past, and today in the clinic's zone", () => {
    setClinicTimeZone(data.db, 'Pacific/Kiritimati'); // UTC+14: already the next day at noon UTC
    mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-30T12:00:00.000Z') });
    const options = { dateOfBirth: '1.3.40', recallDate: 'today', startAt: '30.11.2026 10:00' };
    assert.deepEqual(readFieldOptions(options, DESK_FIELDS, data.db), {
      date_of_birth: '1940-03-01',
      recall_date: '2026-12-01',
      start_at: '2026-11-30T10:00',
    });
  });

  it('lay the options over a base from a file, and leave out what was not given', () => {
    const base = { amount: '10.00', method: 'cash', note: 'from the file' };
    assert.deepEqual(readFieldOptions({ method: 'CARD' }, PAYMENT_INPUT_FIELDS, data.db, { base }), {
      amount: '10.00',
      method: 'card',
      note: 'from the file',
    });
    assert.equal(base.method, 'cash', 'the base itself is left as it was');
  });

  it('name a field given otherwise than as its own option by what was typed, in the help and in refusals', () => {
    const limit = [field.integer('rate_limit_per_minute', { minimum: 1 })];
    const command = addFieldOptions(quietCommand(), limit, { names: { rate_limit_per_minute: 'rate-limit' } });
    fieldArgument(command, '<ref>', 'the appointment', 'appointment_id');
    assert.notEqual(optionLine(command, '--rate-limit'), undefined);
    assert.deepEqual(
      readFieldOptions(parsed(command, ['A-17', '--rate-limit', '30']), limit, data.db, { names: { rate_limit_per_minute: 'rate-limit' } }),
      {
        rate_limit_per_minute: 30,
      },
    );
    assert.deepEqual(Object.fromEntries(fieldLabels(command)), { rate_limit_per_minute: '--rate-limit', appointment_id: '<ref>' });
    assert.equal(fieldLabels(undefined).size, 0);
    assert.equal(fieldLabels(quietCommand()).size, 0);
  });
});

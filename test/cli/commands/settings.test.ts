import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic, startServeProcess, STOP_SIGNAL, type CliResult } from '../../helpers/run-cli.js';

/** The lines a refusal printed for people, each checked to fit 100 columns. */
function refusalLines(result: CliResult): string[] {
  assert.equal(result.code, 1, result.stdout);
  const lines = result.stderr.trimEnd().split('\n');
  for (const line of lines) assert.ok([...line].length <= 100, `wider than 100 columns: ${line}`);
  return lines;
}

/** `settings show --json` of a new clinic, on a machine in UTC: nothing set. */
const UNSET = {
  timezone: 'UTC',
  timezone_source: 'machine',
  currency: 'EUR',
  currency_source: 'default',
  contact_rule: 'email-and-mobile',
  contact_rule_source: 'default',
  name: null,
  country: null,
  retention: null,
};

describe('clinic settings: the time zone', () => {
  const data = useTestDatabase({ each: true });
  // The machine's zone, whatever the test machine's: UTC, as on a server.
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir], { env: { TZ: 'UTC' } });
  const shown = async () => JSON.parse((await clinic('settings', 'show', '--json')).stdout) as Record<string, string>;

  it('shows the machine zone and says it is the machine zone until one is set', async () => {
    assert.deepEqual(await shown(), UNSET);
    const text = (await clinic('settings', 'show')).stdout;
    assert.match(text, /^Time zone {2}UTC \(this machine's zone; clinic settings set-timezone ZONE sets the clinic's\)$/m);
    assert.match(text, /^Currency {3}EUR \(the default; clinic settings set-currency CODE sets the clinic's\)$/m);
  });

  // Which names are stored as which zone, and which zone is offered for a name refused:
  // SET_TIME_ZONE's table (test/domain/desk/clinic-settings.test.ts). Here, what the desk prints.
  it('stores a zone typed in any case and between spaces by its IANA name, and says how it reads times', async () => {
    const stored = 'America/New_York';
    const result = await clinic('settings', 'set-timezone', ' america/new_york ');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `Time zone set to ${stored}: times without an offset are read in it.\n`);
    assert.deepEqual(await shown(), { ...UNSET, timezone: stored, timezone_source: 'setting' });
  });

  for (const [typed, meant] of [
    ['new york', 'America/New_York'],
    ['Europe/Berlni', 'Europe/Berlin'],
  ]) {
    it(`refuses ${JSON.stringify(typed)}, naming it, and asks whether ${meant} was meant`, async () => {
      const lines = refusalLines(await clinic('settings', 'set-timezone', typed!));
      assert.deepEqual(lines, [
        'error: VALIDATION_ERROR: the input is not valid',
        `  <zone>: Value error, "${typed}" is not an IANA time zone (Region/City) (value_error)`,
        `    hint: did you mean ${meant}?`,
      ]);
      assert.equal((await shown()).timezone_source, 'machine', 'nothing was stored');
    });
  }

  it('offers nothing for a name close to no zone, and keeps a long one within 100 columns', async () => {
    assert.deepEqual(refusalLines(await clinic('settings', 'set-timezone', 'Mars/Olympus')), [
      'error: VALIDATION_ERROR: the input is not valid',
      '  <zone>: Value error, "Mars/Olympus" is not an IANA time zone (Region/City) (value_error)',
    ]);
    const long = refusalLines(await clinic('settings', 'set-timezone', `Europe/${'x'.repeat(90)}`));
    assert.match(long[1]!, /"Europe\/xxxxxxxxxxxx…" is not an IANA time zone/);
  });

  it('gives the suggestions in the error body with --json', async () => {
    const result = await clinic('settings', 'set-timezone', 'Vienna', '--json');
    assert.equal(result.code, 1);
    const [issue] = JSON.parse(result.stderr).detail;
    assert.deepEqual(issue.loc, ['body', 'timezone']);
    assert.equal(issue.type, 'value_error');
    assert.equal(issue.input, 'Vienna');
    assert.deepEqual(issue.ctx.did_you_mean, ['Europe/Vienna']);
  });
});

describe('clinic serve: the time zone at start', () => {
  const data = useTestDatabase({ each: true });

  /** The `timezone` line a start of `serve` on the test's data logs. */
  async function startLine(): Promise<Record<string, unknown>> {
    const server = await startServeProcess(['--data', data.dataDir], { env: { TZ: 'UTC' } });
    server.child.kill(STOP_SIGNAL);
    await server.exited;
    const lines = server.logLines.filter((line) => line.event === 'timezone');
    assert.equal(lines.length, 1, server.output().stdout);
    return lines[0]!;
  }

  it('says at every start, while no zone is set, that times are read in the machine zone and how to set one', async () => {
    for (let start = 0; start < 2; start += 1) {
      assert.deepEqual(
        { ...(await startLine()), time: undefined },
        {
          time: undefined,
          event: 'timezone',
          timezone: 'UTC',
          source: 'machine',
          note: "times are read in UTC (this machine's zone); set the clinic's with: clinic settings set-timezone Europe/Vienna (its IANA name)",
        },
      );
    }
  });

  it('names the clinic zone, without the advice, once it is set', async () => {
    assert.equal((await runClinic(['settings', 'set-timezone', 'Europe/Vienna', '--data', data.dataDir])).code, 0);
    const line = await startLine();
    assert.deepEqual({ ...line, time: undefined }, { time: undefined, event: 'timezone', timezone: 'Europe/Vienna', source: 'setting' });
  });
});

describe('clinic settings set-currency', () => {
  const data = useTestDatabase({ each: true });
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

  it('stores an ISO 4217 code in capitals; new invoices, prices and the day report use it', async () => {
    const result = await clinic('settings', 'set-currency', 'chf');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Currency set to CHF.\nNew invoices are in CHF unless --currency says otherwise.\n');
    const settings = JSON.parse((await clinic('settings', 'show', '--json')).stdout);
    assert.equal(settings.currency, 'CHF');
    assert.equal(settings.currency_source, 'setting');
    const patient = createTestPatient(data.db);
    const invoice = await clinic('invoice', 'create', '--patient-id', patient.patient_number, '--total', '80', '--json');
    assert.equal(JSON.parse(invoice.stdout).currency, 'CHF');
    const service = await clinic('service', 'add', '--name', 'Check-up', '--duration-min', '30', '--price', '80', '--color', 'blue');
    assert.match(service.stdout, /80\.00 CHF/);
    assert.equal(JSON.parse((await clinic('report', 'day', '--json')).stdout).currency, 'CHF');
  });

  it('leaves every invoice in the currency it was issued in, and says which open ones stay in another', async () => {
    const patient = createTestPatient(data.db);
    const open = createTestInvoice(data.db, { patient_id: patient.id });
    createTestInvoice(data.db, { patient_id: createTestPatient(data.db).id, currency: 'USD' });
    const result = await clinic('settings', 'set-currency', 'CHF', '--json');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      currency: 'CHF',
      open_in_other_currencies: [
        { currency: 'EUR', invoices: 1 },
        { currency: 'USD', invoices: 1 },
      ],
    });
    assert.equal(JSON.parse((await clinic('invoice', 'show', open.invoice_number, '--json')).stdout).currency, 'EUR');
    // A patient's open invoices share one currency: theirs is EUR until it is paid.
    const refused = await clinic('invoice', 'create', '--patient-id', patient.patient_number, '--total', '10', '--json');
    assert.equal(JSON.parse(refused.stderr).detail.code, 'INVOICE_CURRENCY_MISMATCH');
    const people = await clinic('settings', 'set-currency', 'chf');
    assert.match(people.stdout, /^1 open invoice stays in EUR, as issued; so do their payments\.$/m);
  });

  it('refuses a code that is not ISO 4217, naming it, and keeps the currency', async () => {
    assert.deepEqual(refusalLines(await clinic('settings', 'set-currency', 'euro')), [
      'error: VALIDATION_ERROR: the input is not valid',
      '  <code>: Value error, "euro" is not an ISO 4217 currency code (value_error)',
    ]);
    assert.equal(JSON.parse((await clinic('settings', 'show', '--json')).stdout).currency, 'EUR');
  });
});

describe("clinic settings: the clinic's name and country (interface 1.3.0)", () => {
  const data = useTestDatabase({ each: true });
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir], { env: { TZ: 'UTC' } });
  const shown = async () => JSON.parse((await clinic('settings', 'show', '--json')).stdout) as Record<string, unknown>;

  it('sets the name and the country, in any case, shows them and records each change once', async () => {
    const named = await clinic('settings', 'set-name', 'Ordination Dr. Huber');
    assert.equal(named.stdout, 'Clinic name set to Ordination Dr. Huber.\n', named.stderr);
    const country = await clinic('settings', 'set-country', ' at ');
    assert.equal(country.stdout, 'Country set to AT (Austria).\n', country.stderr);
    assert.equal((await clinic('settings', 'set-country', 'AT')).stdout, 'Country stays AT (Austria).\n');
    const settings = await shown();
    assert.deepEqual([settings.name, settings.country, settings.retention], ['Ordination Dr. Huber', 'AT', null]);
    const text = (await clinic('settings', 'show')).stdout;
    assert.match(text, /^Name {7}Ordination Dr\. Huber$/m);
    assert.match(text, /^Country {4}AT$/m);
    const trail = JSON.parse((await clinic('audit', 'list', '--json')).stdout) as { action: string; detail: { changed: string[] } }[];
    const changes = trail.filter((event) => event.action === 'setting.update').map((event) => event.detail.changed);
    assert.deepEqual(changes, [['name'], ['country'], []]);
  });

  it('says what is not set yet and how to set it', async () => {
    const text = (await clinic('settings', 'show')).stdout;
    assert.match(text, /^Name {7}not set \(clinic settings set-name TEXT sets it; reminders need it\)$/m);
    assert.match(text, /^Country {4}not set \(clinic settings set-country CC sets it\)$/m);
  });

  it('refuses a country ISO 3166-1 does not assign, and a name of nothing or over 100 characters, changing nothing', async () => {
    for (const typed of ['XY', 'Austria', 'EU', 'A']) {
      const lines = refusalLines(await clinic('settings', 'set-country', typed));
      assert.match(lines[1]!, /is not an ISO 3166-1 country code \(two letters, e\.g\. AT or DE\)/, typed);
    }
    assert.match(refusalLines(await clinic('settings', 'set-name', '   '))[1]!, /at least 1 character/);
    assert.match(refusalLines(await clinic('settings', 'set-name', 'x'.repeat(101)))[1]!, /at most 100 characters/);
    const settings = await shown();
    assert.deepEqual([settings.name, settings.country], [null, null]);
  });
});

describe('clinic settings set-retention: the AT and DE presets (interface 1.3.0, "Retention")', () => {
  const data = useTestDatabase({ each: true });
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir], { env: { TZ: 'UTC' } });
  const shown = async () => JSON.parse((await clinic('settings', 'show', '--json')).stdout) as Record<string, unknown>;

  it('sets a preset in any case, 10 years of records by default, prints its rules and law, and records each change once', async () => {
    assert.match(
      (await clinic('settings', 'show')).stdout,
      /^Retention {2}not set \(clinic settings set-retention --country AT\|DE; erasing a patient needs it\)$/m,
    );
    const set = await clinic('settings', 'set-retention', '--country', 'at');
    assert.equal(
      set.stdout,
      [
        'Retention: Austria, medical records kept 10 years.',
        '',
        "AT-RECORDS  10 years from each entry's date (§ 51 ÄrzteG 1998)",
        '            held appointments, documents not of type invoices, kept fields',
        'AT-BILLING  7 years from the end of the calendar year of the latest (§ 132 (1) BAO)',
        '            an invoice with its payments and refunds; documents of type invoices',
        'AUDIT       as long as the trail (Art. 17 (3) (b), (e) GDPR)',
        '            the audit trail',
        '',
      ].join('\n'),
      set.stderr,
    );
    const german = JSON.parse((await clinic('settings', 'set-retention', '--country', 'DE', '--records-years', '30', '--json')).stdout);
    assert.deepEqual(german, {
      country: 'DE',
      records_years: 30,
      rules: [
        {
          id: 'DE-RECORDS',
          covers: 'held appointments, documents not of type invoices, kept fields',
          years: 30,
          from: 'end of treatment: last held appointment or record document',
          reference: '§ 630f (3) BGB, § 10 (3) MBO-Ä',
        },
        {
          id: 'DE-BILLING',
          covers: 'an invoice with its payments and refunds; documents of type invoices',
          years: 8,
          from: 'end of the calendar year of the latest',
          reference: '§ 147 (3) AO, § 14b UStG',
        },
        { id: 'AUDIT', covers: 'the audit trail', years: null, from: null, reference: 'Art. 17 (3) (b), (e) GDPR' },
      ],
    });
    await clinic('settings', 'set-retention', '--country', 'DE', '--records-years', '30');
    assert.deepEqual((await shown()).retention, german);
    assert.match(
      (await clinic('settings', 'show')).stdout,
      /^Retention {2}DE, medical records 30 years \(clinic settings set-retention\)$/m,
    );
    const trail = JSON.parse((await clinic('audit', 'list', '--json')).stdout) as { action: string; detail: { changed: string[] } }[];
    const changes = trail.filter((event) => event.action === 'setting.update').map((event) => event.detail.changed);
    assert.deepEqual(changes, [['retention'], ['retention'], []]);
  });

  it('refuses a country without a preset and records years outside 10 to 30, changing nothing', async () => {
    const swiss = refusalLines(await clinic('settings', 'set-retention', '--country', 'CH'));
    assert.match(swiss[1]!, /retention presets exist for AT and DE \(Austria, Germany\), not for "CH"/);
    for (const years of ['9', '31', 'ten']) {
      const lines = refusalLines(await clinic('settings', 'set-retention', '--country', 'AT', '--records-years', years));
      assert.match(lines[1]!, /^ {2}--records-years/, years);
    }
    const missing = await clinic('settings', 'set-retention');
    assert.notEqual(missing.code, 0);
    assert.equal((await shown()).retention, null);
  });
});

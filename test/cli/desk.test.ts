import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { insertDocument } from '../../src/db/documents.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import type { Appointment } from '../../src/domain/appointments/present-appointment.js';
import { addDoctor, addService, type Doctor } from '../../src/domain/catalog.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import type { Invoice } from '../../src/domain/invoices/present-invoice.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { setClinicTimeZone, setModuleEnabled } from '../../src/domain/settings.js';
import { buildInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';
import { forPeople, jsonOf, lineWith, refusalOf } from '../helpers/desk-output.js';

/**
 * The front desk's commands (clinic-api-1.1.md, "Staff references on the command line"): with
 * --json exactly the API's bodies, compared with what the running server answers; without it,
 * clinic time, money with its currency, numbers and names, and nothing wider than 100 columns.
 */

const ZONE = 'Europe/Vienna';
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

/** An ISO instant `ms` from now, to the minute. */
const fromNow = (ms: number) => new Date(Math.floor((Date.now() + ms) / 60000) * 60000).toISOString();

describe('the front desk commands', () => {
  const server = useTestServer();
  const clinic = (...args: string[]) => runClinic([...args, '--data', server.dataDir]);

  let berger: Doctor;
  let bergmann: Doctor;
  let ada: Patient;
  let juergen: Patient;
  let long: Patient;
  /** Ada's documents' ids, oldest first. */
  let sheet: Patient;
  let comer: Patient;
  let atTwo: Appointment;
  let overnight: Appointment;
  let afterMidnight: Appointment;
  let longOne: Appointment;
  let adaOpen: Invoice;
  let adaNewer: Invoice;
  let adaPaid: Invoice;
  let longInvoice: Invoice;
  const upcoming: Record<'past' | 'ongoing' | 'tomorrow' | 'far', Appointment> = {} as never;

  before(() => {
    const db = server.db;
    setClinicTimeZone(db, ZONE);
    berger = addDoctor(db, { name: 'Dr. Anna Berger', color: '#3366ff' });
    bergmann = addDoctor(db, { name: 'Dr. Max Bergmann', color: '#ff6633' });
    const checkUp = addService(db, { name: 'Check-up', duration_min: 30, price: '85.50', color: '#33aa55' });
    ada = createTestPatient(db, { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1815-12-10', cave: 'Penicillin' });
    juergen = createTestPatient(db, { first_name: 'Jürgen', last_name: 'Müller-Lüdenscheidt', date_of_birth: '1961-07-23' });
    long = createTestPatient(db, { first_name: 'Maximiliane', last_name: 'Abcdefghij'.repeat(12) });
    sheet = createTestPatient(db, { first_name: 'Sheet', last_name: 'Filler' });
    comer = createTestPatient(db, { first_name: 'Carla', last_name: 'Comer' });
    const book = (body: Record<string, unknown>) => bookAppointment(db, body, 'cli');
    // Clinic time (no offset): 14:00 in Vienna is 13:00 UTC in November.
    atTwo = book({
      patient_id: ada.id,
      start_at: '2025-11-24T14:00',
      end_at: '2025-11-24T14:30',
      resource_id: berger.id,
      service_ids: [checkUp.id],
    });
    overnight = book({ patient_id: juergen.id, start_at: '2025-11-24T23:30', end_at: '2025-11-25T00:30', resource_id: bergmann.id });
    // 23:30 UTC on the 24th, but the 25th in Vienna.
    afterMidnight = book({ patient_id: juergen.id, start_at: '2025-11-24T23:30Z', end_at: '2025-11-25T00:00Z', resource_id: berger.id });
    longOne = book({ patient_id: long.id, start_at: '2025-11-24T16:00', end_at: '2025-11-24T16:30', resource_id: berger.id });
    // More than a page of the API: the day sheet is never cut at 50.
    for (let i = 0; i < 52; i++) {
      const start = Date.parse('2025-11-26T07:00:00Z') + i * 10 * 60000;
      book({ patient_id: sheet.id, start_at: new Date(start).toISOString(), end_at: new Date(start + 10 * 60000).toISOString() });
    }
    // Carla's appointments are placed around the real clock: one over, one under way, the rest to come.
    upcoming.past = book({ patient_id: comer.id, start_at: fromNow(-2 * DAY), end_at: fromNow(-2 * DAY + HOUR) });
    upcoming.far = book({ patient_id: comer.id, start_at: fromNow(200 * DAY), end_at: fromNow(200 * DAY + HOUR) });
    upcoming.tomorrow = book({ patient_id: comer.id, start_at: fromNow(DAY), end_at: fromNow(DAY + HOUR), resource_id: berger.id });
    upcoming.ongoing = book({ patient_id: comer.id, start_at: fromNow(-HOUR), end_at: fromNow(HOUR) });

    adaOpen = createInvoice(db, buildInvoice(ada.id, { total: '120.50', issued_at: '2026-11-20T09:00:00Z' }));
    adaPaid = createInvoice(db, buildInvoice(ada.id, { total: '40.00', issued_at: '2026-11-21T09:00:00Z' }));
    adaNewer = createInvoice(db, buildInvoice(ada.id, { total: '15.00', issued_at: '2026-11-22T09:00:00Z' }));
    longInvoice = createInvoice(db, buildInvoice(long.id, { total: '99999999.99', issued_at: '2026-11-22T10:00:00Z' }));
    recordPayment(db, { path: { invoice_id: adaPaid.id }, headers: {}, body: { amount: '40.00', method: 'card' } });
    // Listed from their rows only: no file is read.
    for (const [title, filename, size, created_at] of [
      ['Referral', 'referral.pdf', 812, '2026-11-20T08:00:00.000Z'],
      [null, 'xray-2026.png', 3 * 1024 * 1024, '2026-11-21T15:30:00.000Z'],
    ] as const) {
      insertDocument(db, {
        id: randomUUID(),
        patient_id: ada.id,
        filename,
        content_type: 'application/octet-stream',
        size,
        sha256: 'a'.repeat(64),
        title,
        type: title === null ? 'xrays' : 'other',
        created_at,
      });
    }
  });

  describe('clinic patient find', () => {
    before(() => {
      for (let i = 1; i <= 55; i++) createTestPatient(server.db, { first_name: `Kim${String(i).padStart(2, '0')}`, last_name: 'Many' });
    });

    it('prints the first page of GET /patients?q with --json', async () => {
      for (const words of [['muller'], ['lud'], ['ada', 'lovelace'], ['P-2'], ['23.07.1961'], ['many']]) {
        const fromCli = jsonOf(await clinic('patient', 'find', ...words, '--json'));
        const fromApi = await server.request('GET', `/patients?q=${encodeURIComponent(words.join(' '))}`);
        assert.deepEqual(fromCli, fromApi.body, words.join(' '));
      }
      const many = jsonOf<{ last_name: string }[]>(await clinic('patient', 'find', 'many', '--json'));
      assert.equal(many.length, 50);
      assert.deepEqual(jsonOf(await clinic('patient', 'find', 'ada', '--json'))[0], {
        id: ada.id,
        patient_number: 'P-000001',
        first_name: 'Ada',
        last_name: 'Lovelace',
        date_of_birth: '1815-12-10',
        email: ada.email,
        mobile: ada.mobile,
        is_active: true,
        outstanding_balance: '135.50',
        outstanding_currency: 'EUR',
        outstanding_balances: [{ currency: 'EUR', amount: '135.50' }],
      });
    });

    it('prints numbers, names, dates and balances for people, and says when there are more', async () => {
      const text = forPeople(await clinic('patient', 'find', 'lud'));
      const line = lineWith(text, 'P-000002');
      assert.match(line, /Müller-Lüdenscheidt, Jürgen/);
      assert.match(line, /23\.07\.1961/);
      assert.match(lineWith(forPeople(await clinic('patient', 'find', 'ada')), 'P-000001'), /135\.50 EUR$/);
      const many = forPeople(await clinic('patient', 'find', 'many'));
      assert.match(many, /Only the first 50 are shown/);
      assert.match(forPeople(await clinic('patient', 'find', 'nobody')), /No patient matches "nobody"/);
    });
  });

  describe('clinic patient show', () => {
    it('prints {patient, upcoming_appointments, open_invoices, documents} as the API gives each', async () => {
      const overview = jsonOf(await clinic('patient', 'show', 'p-1', '--json'));
      assert.deepEqual(Object.keys(overview), ['patient', 'upcoming_appointments', 'open_invoices', 'documents']);
      assert.deepEqual(overview.patient, (await server.request('GET', `/patients/${ada.id}`)).body);
      assert.deepEqual(overview.open_invoices, (await server.request('GET', `/invoices?patient_id=${ada.id}&unpaid=true`)).body);
      assert.deepEqual(
        overview.open_invoices.map((invoice: Invoice) => invoice.invoice_number),
        [adaNewer.invoice_number, adaOpen.invoice_number],
        'open invoices only, newest first',
      );
      const documents = (await server.request('GET', `/patients/${ada.id}/documents`)).body;
      assert.equal(documents.length, 2);
      assert.deepEqual(overview.documents, documents);
    });

    it('lists appointments that end after now, soonest first, as GET /appointments/{id} gives them', async () => {
      const overview = jsonOf(await clinic('patient', 'show', comer.patient_number, '--json'));
      const expected = [upcoming.ongoing, upcoming.tomorrow, upcoming.far];
      assert.deepEqual(
        overview.upcoming_appointments.map((appointment: Appointment) => appointment.appointment_number),
        expected.map((appointment) => appointment.appointment_number),
      );
      for (const [i, appointment] of expected.entries()) {
        assert.deepEqual(overview.upcoming_appointments[i], (await server.request('GET', `/appointments/${appointment.id}`)).body);
      }
    });

    it('lists at most 20 coming appointments', async () => {
      const busy = createTestPatient(server.db, { first_name: 'Bea', last_name: 'Busy' });
      const booked = Array.from({ length: 23 }, (_, i) =>
        bookAppointment(server.db, { patient_id: busy.id, start_at: fromNow((i + 1) * DAY), end_at: fromNow((i + 1) * DAY + HOUR) }, 'cli'),
      );
      const overview = jsonOf(await clinic('patient', 'show', busy.id, '--json'));
      assert.deepEqual(
        overview.upcoming_appointments.map((appointment: Appointment) => appointment.id),
        booked.slice(0, 20).map((appointment) => appointment.id),
      );
      // For people, the cut is said, not silent.
      assert.match(forPeople(await clinic('patient', 'show', busy.patient_number)), /^Only the next 20 are shown: /m);
    });

    it('prints the record, balance, appointments, invoices and documents for people', async () => {
      const text = forPeople(await clinic('patient', 'show', 'P-000001'));
      assert.match(text, /^P-000001 {2}Ada Lovelace$/m);
      assert.match(text, /^Born +10\.12\.1815$/m);
      assert.match(text, /^Cave +Penicillin$/m);
      assert.match(text, /^Owes +135\.50 EUR$/m);
      assert.match(lineWith(text, adaOpen.invoice_number), /20\.11\.2026 +issued +120\.50 EUR +120\.50 EUR$/);
      assert.doesNotMatch(text, new RegExp(adaPaid.invoice_number));
      assert.match(
        text,
        new RegExp(
          `^Documents\\nNumber {4}Date +Type +Title +File +Size\\n` +
            `D-000002 {2}21\\.11\\.2026 {2}xrays +xray-2026\\.png +3\\.0 MiB\\n` +
            `D-000001 {2}20\\.11\\.2026 {2}other +Referral +referral\\.pdf +812 B\\n`,
          'm',
        ),
      );
      const carla = forPeople(await clinic('patient', 'show', comer.patient_number));
      const tomorrowLine = lineWith(carla, upcoming.tomorrow.appointment_number);
      const start = new Date(upcoming.tomorrow.start_at);
      const viennaClock = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      assert.match(tomorrowLine, new RegExp(`${viennaClock.format(start)}-`));
      assert.match(tomorrowLine, /Dr\. Anna Berger/);
    });

    it('fits a 120-character name into 100 columns', async () => {
      const text = forPeople(await clinic('patient', 'show', long.patient_number));
      assert.match(text, /Abcdefghij/);
    });
  });

  describe('clinic appointment list', () => {
    it('prints every Appointment of the clinic day as GET /appointments orders them, not cut at 50', async () => {
      const day = jsonOf<Appointment[]>(await clinic('appointment', 'list', '--date', '2025-11-26', '--json'));
      assert.equal(day.length, 52);
      const api = await server.request('GET', '/appointments?from=2025-11-26&to=2025-11-26&limit=200');
      assert.deepEqual(day, api.body);
    });

    it('takes the day in clinic time: 23:30 UTC on the 24th belongs to the 25th in Vienna', async () => {
      const numbers = (list: Appointment[]) => list.map((appointment) => appointment.appointment_number);
      const monday = jsonOf<Appointment[]>(await clinic('appointment', 'list', '--date', '2025-11-24', '--json'));
      assert.deepEqual(numbers(monday), numbers([atTwo, longOne, overnight]));
      const tuesday = jsonOf<Appointment[]>(await clinic('appointment', 'list', '--date', '2025-11-25', '--json'));
      assert.deepEqual(numbers(tuesday), numbers([overnight, afterMidnight]));
      assert.deepEqual(monday, (await server.request('GET', '/appointments?from=2025-11-24&to=2025-11-24')).body);
    });

    it("shows today's sheet without --date or with --date today", async () => {
      const today = jsonOf<Appointment[]>(await clinic('appointment', 'list', '--json'));
      const alsoToday = jsonOf<Appointment[]>(await clinic('appointment', 'list', '--date', 'TODAY', '--json'));
      const api = (await server.request('GET', '/appointments?limit=200')).body;
      assert.deepEqual(today, api);
      assert.deepEqual(alsoToday, api);
      assert.ok(today.some((appointment) => appointment.id === upcoming.ongoing.id));
    });

    it('takes --doctor as an id, a whole name in any case or a unique part of one', async () => {
      const numbers = async (doctor: string) =>
        jsonOf<Appointment[]>(await clinic('appointment', 'list', '--date', '2025-11-24', '--doctor', doctor, '--json')).map(
          (appointment) => appointment.appointment_number,
        );
      assert.deepEqual(await numbers(berger.id), [atTwo.appointment_number, longOne.appointment_number]);
      assert.deepEqual(await numbers('DR. ANNA BERGER'), [atTwo.appointment_number, longOne.appointment_number]);
      assert.deepEqual(await numbers('bergmann'), [overnight.appointment_number]);
      assert.deepEqual(
        jsonOf(await clinic('appointment', 'list', '--date', '2025-11-24', '--doctor', bergmann.id, '--json')),
        (await server.request('GET', `/appointments?from=2025-11-24&to=2025-11-24&resource_id=${bergmann.id}`)).body,
      );
    });

    it('refuses an unknown or ambiguous doctor with DOCTOR_NOT_FOUND and a hint', async () => {
      const unknown = await clinic('appointment', 'list', '--doctor', 'Dr. Who');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^error: DOCTOR_NOT_FOUND: No doctor is called "Dr\. Who"\.\nhint: .*clinic doctor list/);
      const ambiguous = refusalOf(await clinic('appointment', 'list', '--doctor', 'berg', '--json'));
      assert.deepEqual(ambiguous, { code: 'DOCTOR_NOT_FOUND', message: '"berg" could be any of Dr. Anna Berger, Dr. Max Bergmann.' });
    });

    it('refuses a --date that is no calendar date, naming --date', async () => {
      const human = await clinic('appointment', 'list', '--date', '2026-02-30');
      assert.equal(human.code, 1);
      assert.match(
        human.stderr,
        /^ {2}--date "[^"]+": is not a date \(date_parsing\)\n {4}hint: a date: 30\.11\.2026, 2026-11-30, today or tomorrow$/m,
      );
      const json = await clinic('appointment', 'list', '--date', '30.02.2026', '--json');
      assert.equal(json.code, 1);
      assert.deepEqual(
        (JSON.parse(json.stderr) as { detail: { type: string; loc: unknown[] }[] }).detail.map((issue) => [issue.type, issue.loc]),
        [['date_parsing', ['query', 'date']]],
      );
    });

    it('prints the day sheet for people in clinic time, with numbers and names', async () => {
      const text = forPeople(await clinic('appointment', 'list', '--date', '2025-11-24'));
      assert.match(text, /^Mon 24\.11\.2025 {2}all doctors {2}\(times in Europe\/Vienna\)$/m);
      assert.match(
        lineWith(text, atTwo.appointment_number),
        /^14:00-14:30 +A-\d{6} {2}P-000001 Ada Lovelace +Dr\. Anna Berger +Check-up +booked$/,
      );
      assert.match(lineWith(text, overnight.appointment_number), /^23:30-25\.11\. 00:30 /);
      assert.doesNotMatch(text, new RegExp(afterMidnight.appointment_number));
      assert.match(lineWith(text, longOne.appointment_number), /Abcdefghij.*…/);
      assert.match(text, /^3 appointments$/m);
      const one = forPeople(await clinic('appointment', 'list', '--date', '2025-11-24', '--doctor', 'bergmann'));
      assert.match(one, /^Mon 24\.11\.2025 {2}Dr\. Max Bergmann /m);
      assert.doesNotMatch(one, /^Time.*Doctor/m);
      assert.match(forPeople(await clinic('appointment', 'list', '--date', '2030-01-01')), /^No appointments\.$/m);
    });

    it('fits 52 appointments into 100 columns', async () => {
      const text = forPeople(await clinic('appointment', 'list', '--date', '2025-11-26'));
      assert.match(text, /^52 appointments$/m);
      assert.match(text, /^08:00-08:10 /m);
    });
  });

  describe('clinic appointment show', () => {
    it('prints GET /appointments/{appointment_id} for an id or a number in any case', async () => {
      const api = (await server.request('GET', `/appointments/${atTwo.id}`)).body;
      const number = atTwo.appointment_number.replace(/^A-0+/, 'a-');
      assert.deepEqual(jsonOf(await clinic('appointment', 'show', number, '--json')), api);
      assert.deepEqual(jsonOf(await clinic('appointment', 'show', atTwo.id, '--json')), api);
    });

    it('prints the appointment for people', async () => {
      const text = forPeople(await clinic('appointment', 'show', atTwo.appointment_number));
      assert.match(text, /^When +Mon 24\.11\.2025 14:00-14:30 \(Europe\/Vienna\)$/m);
      assert.match(text, /^Patient +P-000001 Ada Lovelace$/m);
      assert.match(text, /^Cave +Penicillin$/m);
      assert.match(text, /^Doctor +Dr\. Anna Berger$/m);
      assert.match(text, /^Service +Check-up$/m);
    });

    it("answers an unknown number or id with the API's 404 code", async () => {
      assert.deepEqual(refusalOf(await clinic('appointment', 'show', 'A-999999', '--json')), {
        code: 'APPOINTMENT_NOT_FOUND',
        message: 'No appointment has the number A-999999.',
      });
      assert.equal(
        refusalOf(await clinic('appointment', 'show', '00000000-0000-4000-8000-000000000000', '--json')).code,
        'APPOINTMENT_NOT_FOUND',
      );
      const human = await clinic('appointment', 'show', 'A-999999');
      assert.equal(human.code, 1);
      assert.match(human.stderr, /^error: APPOINTMENT_NOT_FOUND: .*\nhint: `clinic appointment list/);
    });
  });

  describe('clinic invoice show and list', () => {
    before(async () => {
      jsonOf(
        await clinic(
          'record-payment',
          '--invoice',
          adaOpen.invoice_number,
          '--amount',
          '20.25',
          '--method',
          'cash',
          '--note',
          'at the desk',
          '--json',
        ),
      );
    });

    it('prints GET /invoices/{invoice_id} for a number in any case, without its zero padding', async () => {
      const api = (await server.request('GET', `/invoices/${adaOpen.id}`)).body;
      const short = adaOpen.invoice_number.toLowerCase().replace(/-0+(\d+)$/, '-$1');
      const shown = jsonOf(await clinic('invoice', 'show', short, '--json'));
      assert.deepEqual(shown, api);
      assert.deepEqual(
        [shown.patient_number, shown.balance, shown.payments.map((p: { amount: number; method: string }) => [p.amount, p.method])],
        ['P-000001', 100.25, [[20.25, 'cash']]],
      );
    });

    it('prints the invoice and its payments for people', async () => {
      const text = forPeople(await clinic('invoice', 'show', adaOpen.invoice_number));
      assert.match(text, new RegExp(`^Invoice ${adaOpen.invoice_number}$`, 'm'));
      assert.match(text, /^Patient +P-000001 Ada Lovelace$/m);
      assert.match(text, /^Issued +Fri 20\.11\.2026 10:00$/m);
      assert.match(text, /^Status +partially paid$/m);
      assert.match(text, /^Total +120\.50 EUR$/m);
      assert.match(text, /^Paid +20\.25 EUR$/m);
      assert.match(text, /^Balance +100\.25 EUR$/m);
      assert.match(text, /^\d\d\.\d\d\.\d{4} +\d\d:\d\d +cash +20\.25 EUR +at the desk$/m);
    });

    it("answers an unknown invoice number with the API's 404 code", async () => {
      assert.equal(refusalOf(await clinic('invoice', 'show', 'INV-2026-999', '--json')).code, 'INVOICE_NOT_FOUND');
      assert.match((await clinic('invoice', 'show', 'inv-2026-999')).stderr, /^error: INVOICE_NOT_FOUND: .*\nhint: /);
    });

    it('lists invoices for people by number, patient and local date, money with currency, within 100 columns', async () => {
      const text = forPeople(await clinic('invoice', 'list'));
      assert.match(text, /^Invoice +Issued +Patient +Status +Total +Balance$/m);
      assert.match(
        lineWith(text, adaOpen.invoice_number),
        /20\.11\.2026 +P-000001 Ada Lovelace +partially paid +120\.50 EUR +100\.25 EUR$/,
      );
      assert.match(lineWith(text, adaPaid.invoice_number), /paid +40\.00 EUR +0\.00 EUR$/);
      assert.match(lineWith(text, longInvoice.invoice_number), /Maximiliane.*… +issued +99999999\.99 EUR +99999999\.99 EUR$/);
      const mine = forPeople(await clinic('invoice', 'list', '--patient-id', 'p-1', '--unpaid'));
      assert.deepEqual(
        mine
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => line.split(' ')[0]),
        [adaNewer.invoice_number, adaOpen.invoice_number],
      );
    });
  });

  describe('modules', () => {
    it('with billing off, refuses invoice create|list|show and report day, and patient show lists no invoices', async () => {
      setModuleEnabled(server.db, 'billing', false);
      try {
        for (const args of [
          ['invoice', 'create', '--patient-id', 'P-1', '--total', '1'],
          ['invoice', 'list'],
          ['invoice', 'show', adaOpen.invoice_number],
          ['report', 'day'],
        ]) {
          assert.equal(refusalOf(await clinic(...args, '--json')).code, 'MODULE_DISABLED', args.join(' '));
        }
        const human = await clinic('report', 'day');
        assert.match(human.stderr, /^error: MODULE_DISABLED: .*\nhint: `clinic module enable NAME`/);
        const overview = jsonOf(await clinic('patient', 'show', 'P-1', '--json'));
        assert.deepEqual(overview.open_invoices, []);
        assert.match(forPeople(await clinic('patient', 'show', 'P-1')), /^Open invoices\n\(the billing module is off\)$/m);
      } finally {
        setModuleEnabled(server.db, 'billing', true);
      }
      assert.equal(jsonOf(await clinic('patient', 'show', 'P-1', '--json')).open_invoices.length, 2);
    });

    it('with payments off, refuses record-payment', async () => {
      setModuleEnabled(server.db, 'payments', false);
      try {
        const result = await clinic('record-payment', '--invoice', adaNewer.invoice_number, '--amount', '1', '--method', 'cash', '--json');
        assert.equal(refusalOf(result).code, 'MODULE_DISABLED');
      } finally {
        setModuleEnabled(server.db, 'payments', true);
      }
    });
  });

  it("answers an unknown patient number with the API's 404 code and a hint", async () => {
    assert.deepEqual(refusalOf(await clinic('patient', 'show', 'P-999999', '--json')), {
      code: 'PATIENT_NOT_FOUND',
      message: 'No patient has the number P-999999.',
    });
    const human = await clinic('patient', 'show', 'p-999999');
    assert.equal(human.code, 1);
    assert.match(human.stderr, /^error: PATIENT_NOT_FOUND: .*\nhint: `clinic patient find NAME`/);
    for (const line of human.stderr.split('\n')) assert.ok(line.length <= 100, line);
  });
});

describe('the desk commands in --help', () => {
  const helpOf = async (...args: string[]) => {
    const result = await runClinic([...args, '--help']);
    assert.equal(result.code, 0, result.stderr);
    // commander wraps at 80 columns when not on a terminal: one line per option.
    return result.stdout.replace(/\n {6,}/g, ' ');
  };

  it('marks the required options, and only those', async () => {
    const create = await helpOf('invoice', 'create');
    assert.match(lineWith(create, '--patient-id'), /\(required\)$/);
    assert.match(lineWith(create, '--total'), /\(required\)$/);
    assert.doesNotMatch(lineWith(create, '--currency'), /required/);
    const book = await helpOf('book-appointment');
    assert.match(lineWith(book, '--start-at'), /\(required\)$/);
    assert.doesNotMatch(lineWith(book, '--resource-id'), /required/);
  });

  it('marks the two options create-patient needs unless the --file gives them, and the two the contact rule asks for, within 100 columns', async () => {
    const raw = await runClinic(['create-patient', '--help']);
    for (const line of raw.stdout.split('\n')) assert.ok(line.length <= 100, line);
    const help = await helpOf('create-patient');
    for (const option of ['--first-name', '--last-name']) {
      assert.match(lineWith(help, option), /\(required unless in --file\)$/, option);
    }
    for (const option of ['--email', '--mobile']) {
      assert.match(lineWith(help, option), /\(required as the contact rule says: clinic settings show\)$/, option);
    }
    assert.doesNotMatch(lineWith(help, '--phone'), /required/);
  });

  it('says that --patient-id of book-appointment takes the id or the number', async () => {
    assert.match(lineWith(await helpOf('book-appointment'), '--patient-id'), /number \(P-000042, P-42\) or its id/);
  });

  it('shows the desk commands with their arguments and options', async () => {
    assert.match(await helpOf('patient', 'find'), /^Usage: clinic patient find \[options\] <text\.\.\.>$/m);
    assert.match(await helpOf('patient', 'show'), /^Usage: clinic patient show \[options\] <ref>$/m);
    assert.match(await helpOf('appointment', 'show'), /^Usage: clinic appointment show \[options\] <ref>$/m);
    assert.match(await helpOf('invoice', 'show'), /^Usage: clinic invoice show \[options\] <ref>$/m);
    const list = await helpOf('appointment', 'list');
    assert.match(lineWith(list, '--date'), /30\.11\.2026, 2026-11-30, today or tomorrow/);
    assert.match(lineWith(list, '--doctor'), /name .* or the id/);
    assert.match(lineWith(await helpOf('report', 'day'), '--date'), /30\.11\.2026, 2026-11-30, today or tomorrow/);
  });
});

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { addDoctor, addService, type Service } from '../../src/domain/catalog.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { formatDate, localDateOf, nextDay } from '../../src/domain/validation/calendar.js';
import { buildPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';
import { createPatientArgs } from '../helpers/desk-args.js';
import { jsonOf } from '../helpers/desk-output.js';

// Issue 28: the desk as a receptionist types it. Every test here runs the real command line.

/** Today and tomorrow in Vienna as YYYY-MM-DD, as the desk's `today` and `tomorrow` mean them. */
function viennaDays(): { today: string; tomorrow: string } {
  const today = localDateOf(Date.now(), 'Europe/Vienna');
  return { today: formatDate(today), tomorrow: formatDate(nextDay(today)) };
}

describe('the desk as a receptionist types it', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  let patientId: string;
  let checkup: Service;
  let cleaning: Service;
  /** Ida Berg, whom the date tests create again and again. */
  const idaBerg = createPatientArgs('Ida', 'Berg', 'i@b.at', '0664 1');
  /** Books Eva from `startAt` to `endAt` as typed, beside whatever else is booked then: the Appointment printed. */
  const bookTyped = async (startAt: string, endAt: string) =>
    jsonOf(
      await clinic('book-appointment', '--patient-id', patientId, '--start-at', startAt, '--end-at', endAt, '--json', '--allow-overlap'),
    );

  before(() => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    patientId = createPatient(data.db, buildPatient({ first_name: 'Eva', last_name: 'Huber' })).id;
    addDoctor(data.db, { name: 'Dr. Anna Berger', color: '#3366ff' });
    addDoctor(data.db, { name: 'Dr. Paul Brandt', color: '#6633ff' });
    checkup = addService(data.db, { name: 'Kontrolle', duration_min: 30, price: 50, color: '#33aa55' });
    cleaning = addService(data.db, { name: 'Mundhygiene', duration_min: 45, price: 80, color: '#55aa33' });
  });

  describe('dates', () => {
    it('takes a date of birth as printouts write it, with or without leading zeros', async () => {
      for (const typed of ['02.03.1985', '2.3.1985', '1985-03-02']) {
        const result = await clinic(
          ...idaBerg,
          '--date-of-birth',
          typed,
          // The same patient three times: a desk rule of issue 42 (PATIENT_DUPLICATE) waived.
          '--allow-duplicate',
          '--json',
        );
        assert.equal(result.code, 0, `${typed}: ${result.stderr}`);
        assert.equal(JSON.parse(result.stdout).date_of_birth, '1985-03-02', typed);
      }
    });

    it('books at a date and time as printouts write them, in clinic time', async () => {
      const appointment = await bookTyped('30.11.2026 10:00', '30.11.2026 10:20');
      // Vienna in winter is UTC+1.
      assert.equal(appointment.start_at, '2026-11-30T09:00:00.000Z');
      assert.equal(appointment.end_at, '2026-11-30T09:20:00.000Z');
    });

    it('reads today and tomorrow as the clinic days, for --date and in a date-time', async () => {
      const { tomorrow } = viennaDays();
      const { appointment_number: number } = await bookTyped('Tomorrow 7:05', 'tomorrow 7:15');
      const listed = await clinic('appointment', 'list', '--date', 'tomorrow', '--json');
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok((JSON.parse(listed.stdout) as { appointment_number: string }[]).some((a) => a.appointment_number === number));
      const [year, month, day] = tomorrow.split('-');
      const dotted = await clinic('appointment', 'list', '--date', `${day}.${month}.${year}`);
      assert.match(dotted.stdout, new RegExp(`^07:05-07:15 +${number}`, 'm'));
      const report = await clinic('report', 'day', '--date', 'TODAY', '--json');
      assert.equal(JSON.parse(report.stdout).date, viennaDays().today);
    });

    it('refuses a date that is on no calendar, naming the option and the value typed, its format said once', async () => {
      const result = await clinic(...idaBerg, '--date-of-birth', '31.02.1985');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^ {2}--date-of-birth "31\.02\.1985": is not a date \(date_parsing\)$/m);
      assert.match(result.stderr, /^ {4}hint: a date: 30\.11\.2026, 2026-11-30, today or tomorrow$/m);
      assert.equal(result.stderr.match(/YYYY-MM-DD/g), null);
    });
  });

  describe('booking by names', () => {
    it('takes the doctor and the service by name, and ends when the service does', async () => {
      const appointment = jsonOf(
        await clinic(
          'book-appointment',
          '--patient-id',
          'P-1',
          '--doctor',
          'berger',
          '--service',
          'kontrolle',
          '--start-at',
          '01.12.2026 10:00',
          '--json',
        ),
      );
      assert.equal(appointment.service_id, checkup.id);
      assert.equal(appointment.start_at, '2026-12-01T09:00:00.000Z');
      assert.equal(appointment.end_at, '2026-12-01T09:30:00.000Z');
      const listed = await clinic('appointment', 'list', '--date', '1.12.2026', '--doctor', 'Dr. Anna Berger', '--json');
      assert.equal(JSON.parse(listed.stdout)[0].appointment_number, appointment.appointment_number);
    });

    it('adds up the lengths of several services, and keeps --resource-id and --service-id working, by name too', async () => {
      const several = await clinic(
        'book-appointment',
        '--patient-id',
        'P-1',
        '--doctor',
        'brandt',
        '--service',
        'Kontrolle',
        '--service',
        'mundhyg',
        '--start-at',
        '02.12.2026 10:00',
        '--json',
      );
      assert.equal(several.code, 0, several.stderr);
      const appointment = JSON.parse(several.stdout);
      assert.deepEqual(appointment.service_ids, [checkup.id, cleaning.id]);
      assert.equal(appointment.end_at, '2026-12-02T10:15:00.000Z');
      const byOldNames = await clinic(
        'book-appointment',
        '--patient-id',
        'P-1',
        '--resource-id',
        'berger',
        '--service-id',
        'Kontrolle',
        '--start-at',
        '03.12.2026 10:00',
        '--json',
      );
      assert.equal(byOldNames.code, 0, byOldNames.stderr);
      assert.equal(JSON.parse(byOldNames.stdout).end_at, '2026-12-03T09:30:00.000Z');
      const byId = await clinic(
        'book-appointment',
        '--patient-id',
        'P-1',
        '--service-id',
        cleaning.id,
        '--start-at',
        '04.12.2026 10:00',
        '--json',
      );
      assert.equal(JSON.parse(byId.stdout).end_at, '2026-12-04T09:45:00.000Z');
    });

    it('refuses a name that fits several, or none, saying which; and one doctor named twice is bad usage', async () => {
      const ambiguous = await clinic(
        'book-appointment',
        '--patient-id',
        'P-1',
        '--doctor',
        'dr.',
        '--service',
        'Kontrolle',
        '--start-at',
        '05.12.2026 10:00',
      );
      assert.equal(ambiguous.code, 1);
      assert.match(ambiguous.stderr, /^error: DOCTOR_NOT_FOUND: "dr\." could be any of Dr\. Anna Berger, Dr\. Paul Brandt\.$/m);
      const unknown = await clinic('book-appointment', '--patient-id', 'P-1', '--service', 'Röntgen', '--start-at', '05.12.2026 10:00');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^error: SERVICE_NOT_FOUND: No service is called "Röntgen"\.\nhint: `clinic service list`/m);
      const twice = await clinic(
        'book-appointment',
        '--patient-id',
        'P-1',
        '--doctor',
        'berger',
        '--resource-id',
        'brandt',
        '--service',
        'Kontrolle',
        '--start-at',
        '05.12.2026 10:00',
      );
      assert.equal(twice.code, 2);
      assert.match(twice.stderr, /give the doctor once/);
    });

    it('without a service, asks for --end-at and says how to do without it', async () => {
      const result = await clinic('book-appointment', '--patient-id', 'P-1', '--doctor', 'berger', '--start-at', '06.12.2026 10:00');
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /^ {2}--end-at: is required \(missing\)\n {4}hint: give --end-at, or a --service: its length then sets the end$/m,
      );
    });
  });

  describe('refusals', () => {
    it('keeps every line within 100 columns, naming the option and the value typed, the hint on its own line', async () => {
      const refusals = [
        await clinic('api-key', 'create', '--name', 'phone system', '--scopes', 'patients:read,appointments:wirte'),
        await clinic('record-payment', '--invoice', 'INV-4', '--amount', '10', '--method', 'Karte'),
        await clinic('book-appointment', '--patient-id', 'P-1', '--start-at', `${'30.11.2026 10:00 '.repeat(10)}`, '--end-at', 'x'),
        await clinic('appointment', 'list', '--date', '30.11.20266'),
      ];
      for (const refusal of refusals) {
        assert.equal(refusal.code, 1, refusal.stderr);
        for (const line of refusal.stderr.split('\n')) assert.ok(line.length <= 100, `${line.length} columns: ${line}`);
      }
      const [scopes, payment, booking] = refusals;
      assert.match(scopes!.stderr, /^ {2}--scopes "appointments:wirte": is not one of the choices \(literal_error\)$/m);
      assert.match(scopes!.stderr, /^ {4}hint: did you mean appointments:write\? one of: patients:read,/m);
      assert.match(payment!.stderr, /^ {2}--invoice "INV-4": is neither a number on paper nor an id \(uuid_parsing\)$/m);
      assert.doesNotMatch(payment!.stderr, /--invoice-id/);
      assert.match(
        payment!.stderr,
        /^ {2}--method "Karte": is not one of the choices \(literal_error\)\n {4}hint: one of: cash, card, bank, other$/m,
      );
      // A long value is shortened, so its line stays readable.
      assert.match(booking!.stderr, /^ {2}--start-at "30\.11\.2026 10:00 [^"]{10,}…": is not a date and time/m);
    });
  });

  describe('choices in any case', () => {
    it('records a payment typed as CASH or Card', async () => {
      const invoice = createInvoice(data.db, { patient_id: patientId, total: 100 });
      for (const [typed, stored] of [
        ['CASH', 'cash'],
        ['Card', 'card'],
      ]) {
        const result = await clinic('record-payment', '--invoice', invoice.invoice_number, '--amount', '10', '--method', typed!, '--json');
        assert.equal(result.code, 0, result.stderr);
        assert.equal(JSON.parse(result.stdout).method, stored);
      }
      const shown = await clinic('invoice', 'show', invoice.invoice_number);
      // One word for a status, at the desk as in the API.
      assert.match(shown.stdout, /^Status +partially paid$/m);
    });
  });

  describe('people read clinic time', () => {
    it('prints a new key with its creation in clinic time, as api-key list does', async () => {
      const created = await clinic('api-key', 'create', '--name', 'reminders');
      assert.equal(created.code, 0, created.stderr);
      assert.doesNotMatch(created.stdout, /\d{4}-\d{2}-\d{2}T/);
      const [key] = (JSON.parse((await clinic('api-key', 'list', '--json')).stdout) as { name: string; created_at: string }[]).filter(
        (k) => k.name === 'reminders',
      );
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Vienna',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(key!.created_at));
      assert.match(created.stdout, new RegExp(`^Created +\\w{3} \\d{2}\\.\\d{2}\\.\\d{4} ${local}$`, 'm'));
      for (const line of created.stdout.split('\n')) assert.ok(line.length <= 100, line);
    });
  });

  describe('help', () => {
    it("groups create-patient's fields and names their formats", async () => {
      const help = await runClinic(['create-patient', '--help']);
      assert.equal(help.code, 0);
      for (const heading of ['Name and contact:', 'Address:', 'Insurance and billing:', 'Recall:'])
        assert.match(help.stdout, new RegExp(`^${heading}$`, 'm'));
      assert.match(help.stdout.replace(/\s+/g, ' '), /--date-of-birth <date> Date of birth; a date: 30\.11\.2026, 2026-11-30,/);
      assert.doesNotMatch(help.stdout, /string; at most/);
      const booking = await runClinic(['book-appointment', '--help']);
      assert.match(booking.stdout.replace(/\s+/g, ' '), /--start-at <time> the start, clinic time: "30\.11\.2026 10:00"/);
      assert.match(booking.stdout.replace(/\s+/g, ' '), /--doctor <name> the doctor: the name/);
    });
  });
});

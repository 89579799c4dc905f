import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createApiKey, listApiKeys } from '../../src/domain/api-keys.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { readAppointment } from '../../src/domain/appointments/list-appointments.js';
import { UPDATE_APPOINTMENT } from '../../src/domain/appointments/update-appointment.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { readPatient } from '../../src/domain/patients/read-patient.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { formatDate, localDateOf } from '../../src/domain/validation/calendar.js';
import { buildPatient, createTestInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic, type CliResult } from '../helpers/run-cli.js';

// Issue 42, part B: the desk's second day. Each describe is one finding of the issue, by its
// number; every test runs the real command line on a data directory of its own.

/** Every line a person sees: none wider than the desk's 100 columns. */
function assertFitsTheDesk(text: string): void {
  for (const line of text.split('\n')) assert.ok([...line].length <= 100, `${[...line].length} columns: ${line}`);
}

/** A date N days from today in `zone`, as the desk prints it (`30.11.2026`), with its weekday (0 Sunday). */
function dayFromToday(days: number, zone: string): { dotted: string; iso: string; weekday: number } {
  const { year, month, day } = localDateOf(Date.now(), zone);
  const iso = formatDate(localDateOf(Date.UTC(year, month - 1, day + days, 12), 'UTC'));
  return { dotted: iso.split('-').reverse().join('.'), iso, weekday: new Date(`${iso}T12:00:00Z`).getUTCDay() };
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const GERMAN_WEEKDAYS = ['So', 'Mo', 'Di', 'Mi', 'Do', 'Fr', 'Sa'];

/**
 * A time zone where it is now about noon (Etc/GMT-N is UTC+N), so that "later today" and "an hour
 * ago" are the same clinic day whenever the test runs.
 */
function zoneAtNoon(): string {
  const offset = 12 - new Date().getUTCHours();
  return offset === 0 ? 'UTC' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

describe('the desk on its second day (issue 42)', () => {
  const data = useTestDatabase();
  const zone = zoneAtNoon();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const ok = (result: CliResult) => {
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return result.stdout;
  };
  let patient: Patient;

  before(() => {
    setClinicTimeZone(data.db, zone);
    patient = createTestPatient(data.db, { first_name: 'Jürgen', last_name: 'Müller', date_of_birth: '1961-07-23' });
  });

  describe('7: German desk input', () => {
    it('takes 1.234,50 as an invoice total and 85,50 as a payment', async () => {
      const invoice = JSON.parse(
        ok(await clinic('invoice', 'create', '--patient-id', patient.patient_number, '--total', '1.234,50', '--json')),
      ) as { id: string; invoice_number: string; total: number };
      assert.equal(invoice.total, 1234.5);
      const paid = ok(await clinic('record-payment', '--invoice', invoice.invoice_number, '--amount', '85,50', '--method', 'cash'));
      assert.match(paid, /^Recorded 85\.50 EUR cash on INV-\d{4}-0+\d+\.$/m);
    });

    it("runs last night's report day with --date yesterday, and takes gestern alike", async () => {
      const yesterday = dayFromToday(-1, zone);
      const report = ok(await clinic('report', 'day', '--date', 'yesterday'));
      assert.match(
        report.split('\n')[0]!,
        new RegExp(`^Payments ${WEEKDAYS[yesterday.weekday]} ${yesterday.dotted.replaceAll('.', '\\.')} `),
      );
      const json = JSON.parse(ok(await clinic('report', 'day', '--date', 'gestern', '--json'))) as { date: string };
      assert.equal(json.date, yesterday.iso);
    });

    it('books at a date with a two-digit year and its weekday in front, and refuses a weekday that is not the date’s', async () => {
      const day = dayFromToday(9, zone);
      const short = `${day.dotted.slice(0, 6)}${day.dotted.slice(8)}`;
      const booked = JSON.parse(
        ok(
          await clinic(
            'book-appointment',
            '--patient-id',
            patient.patient_number,
            '--start-at',
            `${GERMAN_WEEKDAYS[day.weekday]!} ${short} 10:00`,
            '--end-at',
            `${short} 10:30`,
            '--json',
          ),
        ),
      ) as { id: string };
      const stored = readAppointment(data.db, booked.id);
      assert.equal(localDateOf(Date.parse(stored.start_at), zone).day, Number(day.iso.slice(8)));
      const wrong = WEEKDAYS[(day.weekday + 1) % 7]!;
      const refused = await clinic('appointment', 'list', '--date', `${wrong} ${day.dotted}`);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stderr, new RegExp(`${day.dotted.replaceAll('.', '\\.')} is a \\w+day, not a`));
    });
  });

  describe('9: errors that fit the screen', () => {
    it('wraps a refusal, its first line too, within 100 columns', async () => {
      const refused = await clinic('serve', '--host', '0.0.0.0', '--port', '0');
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stderr, /^error: TLS_REQUIRED: /);
      assertFitsTheDesk(refused.stderr);
    });

    it('says what was wrong with the usage and where the help is, in place of the whole help', async () => {
      const refused = await clinic('serve', '--prot', '8080');
      assert.equal(refused.code, 2);
      assert.equal(refused.stderr, "error: unknown option '--prot'\n(Did you mean --port?)\nsee `clinic serve --help`\n");
      assert.equal(refused.stdout, '');
    });
  });

  describe('10: ids at the desk', () => {
    it('revokes an API key by its name, in any case', async () => {
      createApiKey(data.db, { name: 'Booking app' });
      const revoked = ok(await clinic('api-key', 'revoke', 'booking APP'));
      assert.match(revoked, /^Revoked the key Booking app \(/);
      assertFitsTheDesk(revoked);
      assert.notEqual(listApiKeys(data.db).find((key) => key.name === 'Booking app')?.revoked_at, null);
    });

    it('shows the version, and edits the version it read, saying so', async () => {
      const shown = ok(await clinic('patient', 'show', patient.patient_number));
      assert.match(shown, /^Version +1$/m);
      const edited = ok(await clinic('patient', 'edit', patient.patient_number, '--mobile', '+43 660 7654321', '--is-active', 'false'));
      assert.match(edited, /^Patient P-0+\d+ Jürgen Müller changed \(version 2\)$/m);
      assert.match(edited, /^The change applied to version 1, the version read just before the change\.$/m);
      // 14: the fields by their labels, their values as words.
      assert.match(edited, /^Active +no$/m);
      assert.match(edited, /^Mobile +\+43 660 7654321$/m);
      assert.equal(readPatient(data.db, patient.id).version, 2);
    });
  });

  describe('12: duplicates and status moves before their time', () => {
    const create = (...more: string[]) =>
      clinic(
        'create-patient',
        '--first-name',
        'maria',
        '--last-name',
        'MÜLLER',
        '--email',
        'maria@example.at',
        '--mobile',
        '0650 1112223',
        '--date-of-birth',
        '2.3.1985',
        ...more,
      );

    it('refuses a second active patient of the same name and date of birth, naming the first, unless --allow-duplicate', async () => {
      const first = createPatient(data.db, buildPatient({ first_name: 'Maria', last_name: 'Müller', date_of_birth: '1985-03-02' }));
      const count = () => (data.db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;
      const before = count();
      const refused = await create();
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(
        refused.stderr,
        new RegExp(`^error: PATIENT_DUPLICATE: ${first.patient_number} Maria Müller, born 02\\.03\\.1985, is already`),
      );
      assert.match(refused.stderr, /--allow-duplicate/);
      assertFitsTheDesk(refused.stderr);
      assert.equal(count(), before);
      assert.match(ok(await create('--allow-duplicate')), /^Patient P-0+\d+ maria MÜLLER created$/m);
      assert.equal(count(), before + 1);
    });

    it('keeps the API’s creation as 1.0.0 made it: a duplicate is created there', () => {
      const again = createPatient(data.db, buildPatient({ first_name: 'Maria', last_name: 'Müller', date_of_birth: '1985-03-02' }));
      assert.equal(again.first_name, 'Maria');
    });

    it('refuses a no-show two days ahead unless --force, and leaves the status', async () => {
      const day = dayFromToday(2, zone);
      const ahead = bookAppointment(
        data.db,
        { patient_id: patient.id, start_at: `${day.iso}T09:00`, end_at: `${day.iso}T09:30`, title: 'Kontrolle' },
        'cli',
      );
      const refused = await clinic('appointment', 'no-show', ahead.appointment_number);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stderr, new RegExp(`^error: APPOINTMENT_NOT_STARTED: ${ahead.appointment_number} starts on `));
      assert.match(refused.stderr, /--force/);
      assert.equal(readAppointment(data.db, ahead.id).status, 'booked');
      const forced = ok(await clinic('appointment', 'no-show', ahead.appointment_number, '--force'));
      // 14: the status as a word, not its enum name.
      assert.match(forced, /^Status +no-show$/m);
    });

    it('takes an arrival earlier on the appointment’s day, and keeps the API’s moves as they were', async () => {
      const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
      const later = bookAppointment(
        data.db,
        { patient_id: patient.id, start_at: inAnHour, end_at: new Date(Date.now() + 5_400_000).toISOString() },
        'cli',
      );
      assert.match(ok(await clinic('appointment', 'arrived', later.appointment_number)), /has arrived\./);
      const day = dayFromToday(2, zone);
      const ahead = bookAppointment(data.db, { patient_id: patient.id, start_at: `${day.iso}T11:00`, end_at: `${day.iso}T11:30` }, 'api');
      const patched = performUseCase(
        UPDATE_APPOINTMENT,
        data.db,
        { path: { appointment_id: ahead.id }, body: { status: 'no_show' } },
        { source: 'api', actor: null },
      );
      assert.equal(patched.appointment.status, 'no_show');
    });
  });

  describe('14: smaller things', () => {
    it('says where a --file is not JSON, and why a --file cannot be read', async () => {
      const file = join(data.dataDir, 'patient.json');
      writeFileSync(file, '{"first_name": "Ida",\n "last_name": "Berg",\n}');
      const refused = await clinic('create-patient', '--file', file);
      assert.equal(refused.code, 1);
      const said = refused.stderr.replace(/\s+/g, ' ');
      assert.match(said, /is not JSON at line 3, column 1: a comma before \}, which JSON does not allow after the last item/);
      assert.doesNotMatch(refused.stderr, /"\{\}"/);
      const missing = await clinic('create-patient', '--file', `${file}.missing`);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr.replace(/\s+/g, ' '), /there is no such file \(ENOENT\)/);
      assert.doesNotMatch(missing.stderr, /INTERNAL|at readFileSync/);
    });

    it('answers a command typed the other way round with the one meant', async () => {
      for (const [typed, meant] of [
        [['patient', 'create'], 'create-patient'],
        [['appointment', 'book'], 'book-appointment'],
      ] as const) {
        const refused = await clinic(...typed);
        assert.equal(refused.code, 2);
        assert.equal(
          refused.stderr,
          `error: unknown command '${typed[1]}' (did you mean \`clinic ${meant}\`?)\nsee \`clinic ${typed[0]} --help\`\n`,
        );
      }
    });

    it('prints statuses as words, and why an appointment was cancelled', async () => {
      const invoice = createTestInvoice(data.db, { patient_id: patient.id, total: '100.00' });
      recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: {}, body: { amount: '40.00', method: 'cash' } });
      assert.match(ok(await clinic('invoice', 'show', invoice.invoice_number)), /^Status +partially paid$/m);
      const day = dayFromToday(3, zone);
      const booked = bookAppointment(data.db, { patient_id: patient.id, start_at: `${day.iso}T15:00`, end_at: `${day.iso}T15:30` }, 'cli');
      const cancelled = ok(await clinic('appointment', 'cancel', booked.appointment_number, '--reason', 'patient ill'));
      assert.match(cancelled, /^Status +cancelled\nReason +patient ill$/m);
    });

    it('names the fields of the help as people write them', async () => {
      const help = ok(await clinic('create-patient', '--help'));
      assert.match(help, /--gdpr-consent \[true\|false\]\s+GDPR consent/);
      assert.match(help, /--tin <text>\s+TIN \(tax identification number\)/);
      assert.doesNotMatch(help, /Gdpr|\bTin\b/);
    });
  });
});

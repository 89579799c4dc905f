import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { buildPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic, type CliResult } from '../../helpers/run-cli.js';
import { assertMatchesSchema } from '../../helpers/contract.js';
import { jsonOf, refusalOf } from '../../helpers/desk-output.js';

/** The desk wraps its refusals at 100 columns: compared on one line. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ');

interface Listed {
  id: string;
  name: string;
  color: string;
  retired_at: string | null;
  price?: number;
  duration_min?: number;
}

/**
 * Issue 42, finding 1: doctors and services can be corrected, and duplicates no longer pass
 * silently (clinic-api-1.3.md, "Doctors and services").
 */
describe('clinic doctor and clinic service corrections', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const invalid = (result: CliResult) => {
    assert.equal(result.code, 1, result.stdout + result.stderr);
    return (JSON.parse(result.stderr) as { detail: { type: string; loc: string[]; msg: string }[] }).detail;
  };
  const doctors = async (...extra: string[]) => jsonOf<Listed[]>(await clinic('doctor', 'list', '--json', ...extra));
  let patient: string;

  before(() => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    patient = createPatient(data.db, buildPatient()).patient_number;
  });

  const book = (...extra: string[]) =>
    clinic('book-appointment', '--patient-id', patient, '--start-at', '2026-12-01T09:00', '--allow-overlap', '--json', ...extra);

  it('refuses a second doctor of the same name, in any case and accents, naming the first (409 DOCTOR_NAME_TAKEN), unless --allow-duplicate', async () => {
    const berger = jsonOf(await clinic('doctor', 'add', '--name', 'Dr. Anna Berger', '--color', '#3366cc', '--json'));
    assertMatchesSchema('Doctor', berger);
    assert.deepEqual(Object.keys(berger), ['id', 'name', 'color', 'retired_at'], 'retired_at appended after the 1.0.0 fields');
    for (const name of ['Dr. Anna Berger', 'dr. anna  BERGER', 'Dr. Ánna Bergér']) {
      const taken = refusalOf(await clinic('doctor', 'add', '--name', name, '--color', 'blue', '--json'));
      assert.equal(taken.code, 'DOCTOR_NAME_TAKEN', name);
      assert.equal(taken.existing_id, berger.id, name);
    }
    const people = await clinic('doctor', 'add', '--name', 'Dr. Anna Berger', '--color', 'blue');
    assert.equal(people.code, 1);
    assert.match(
      oneLine(people.stderr),
      /DOCTOR_NAME_TAKEN: An active doctor is already called "Dr\. Anna Berger" \(.{36}\).*--allow-duplicate/,
    );
    assert.deepEqual(
      (await doctors()).map((doctor) => doctor.name),
      ['Dr. Anna Berger'],
      'nothing was added',
    );

    const twin = jsonOf(await clinic('doctor', 'add', '--name', 'Dr. Anna Berger', '--color', 'red', '--allow-duplicate', '--json'));
    assert.notEqual(twin.id, berger.id);
    // Two of one name: a part of it names neither, and the refusal says which ids tell them apart.
    const ambiguous = await book('--doctor', 'berger');
    assert.equal(ambiguous.code, 1);
    assert.match(
      oneLine(ambiguous.stderr),
      new RegExp(`could be any of Dr\\. Anna Berger \\(${berger.id}\\), Dr\\. Anna Berger \\(${twin.id}\\)`),
    );

    // Renamed, the twin no longer shares the name, and her colleague's whole name names one doctor.
    const renamed = jsonOf(await clinic('doctor', 'edit', twin.id, '--name', 'Dr. Eva Berger-Kurz', '--json'));
    assert.deepEqual(renamed, { ...twin, name: 'Dr. Eva Berger-Kurz' });
    assert.equal(
      jsonOf<{ resource_id: string }>(await book('--doctor', 'anna berger', '--end-at', '2026-12-01T09:10')).resource_id,
      berger.id,
    );
    const clash = refusalOf(await clinic('doctor', 'edit', renamed.id, '--name', 'DR. ANNA BERGER', '--json'));
    assert.deepEqual([clash.code, clash.existing_id], ['DOCTOR_NAME_TAKEN', berger.id], 'a rename is checked as an add is');
    assert.equal(jsonOf(await clinic('doctor', 'edit', 'anna berger', '--name', 'Dr. anna Berger', '--json')).name, 'Dr. anna Berger');
  });

  it('takes a colour as #RGB, #RRGGBB or one of the ten names (stored lower-case), else 422 at color', async () => {
    const blau = invalid(await clinic('doctor', 'add', '--name', 'Dr. Blau', '--color', 'blau', '--json'));
    assert.deepEqual(
      blau.map((issue) => [issue.type, issue.loc.join('.')]),
      [['value_error', 'body.color']],
    );
    const shown = await clinic('doctor', 'add', '--name', 'Dr. Blau', '--color', 'blau');
    assert.match(
      oneLine(shown.stderr),
      /--color "blau": .*#RGB or #RRGGBB, or one of blue, green, red, orange, purple, teal, pink, grey, yellow, brown/,
    );
    assert.equal(jsonOf(await clinic('doctor', 'add', '--name', 'Dr. Blau', '--color', 'Blue', '--json')).color, 'blue');
    assert.equal(jsonOf(await clinic('doctor', 'add', '--name', 'Dr. Grün', '--color', '#A1b', '--json')).color, '#A1b');
    for (const color of ['#12345', '#GGGGGG', 'light blue', '']) {
      assert.equal(
        (await clinic('service', 'add', '--name', `S ${color}`, '--duration-min', '5', '--price', '1', '--color', color)).code,
        1,
        color,
      );
    }
    const edited = invalid(await clinic('doctor', 'edit', 'blau', '--color', 'navy', '--json'));
    assert.deepEqual(
      edited.map((issue) => issue.loc.join('.')),
      ['body.color'],
    );
    assert.equal(jsonOf(await clinic('doctor', 'edit', 'blau', '--color', 'TEAL', '--json')).color, 'teal');
  });

  it('retires a doctor who left: left out of the list and of names, refused for bookings by id (422 DOCTOR_RETIRED), kept on her appointments', async () => {
    const leaving = jsonOf(await clinic('doctor', 'add', '--name', 'Dr. Leni Gehtweg', '--color', 'grey', '--json'));
    const kept = jsonOf<{ appointment_number: string; resource_id: string }>(
      await book('--doctor', 'gehtweg', '--end-at', '2026-12-01T09:30'),
    );
    const retired = jsonOf(await clinic('doctor', 'retire', 'gehtweg', '--json'));
    assert.equal(retired.id, leaving.id);
    assert.ok(retired.retired_at !== null && Date.parse(retired.retired_at) > 0);

    assert.ok(!(await doctors()).some((doctor) => doctor.id === leaving.id), 'left out of doctor list');
    assert.deepEqual(
      (await doctors('--include-retired')).find((doctor) => doctor.id === leaving.id),
      retired,
    );
    const byId = refusalOf(await book('--doctor', leaving.id, '--end-at', '2026-12-01T10:00'));
    assert.deepEqual([byId.code, byId.id], ['DOCTOR_RETIRED', leaving.id]);
    // By name she is still found (no active doctor has it), and refused as retired, not as unknown.
    assert.equal(refusalOf(await book('--doctor', 'gehtweg', '--end-at', '2026-12-01T10:00')).code, 'DOCTOR_RETIRED');

    const appointment = jsonOf<{ resource_id: string; status: string }>(
      await clinic('appointment', 'show', kept.appointment_number, '--json'),
    );
    assert.equal(appointment.resource_id, leaving.id, 'her appointment keeps her');
    const moved = refusalOf(await clinic('appointment', 'reschedule', kept.appointment_number, '--start-at', '2026-12-02T09:00', '--json'));
    assert.deepEqual([moved.code, moved.id], ['DOCTOR_RETIRED', leaving.id], 'moved to another time it would need her');
    assert.equal(jsonOf<{ status: string }>(await clinic('appointment', 'cancel', kept.appointment_number, '--json')).status, 'cancelled');

    const again = await clinic('doctor', 'retire', leaving.id);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Nothing to change: Dr\. Leni Gehtweg is as given\.$/m);
    const back = jsonOf(await clinic('doctor', 'reinstate', 'gehtweg', '--json'));
    assert.deepEqual(back, { ...leaving, retired_at: null });
    assert.equal((await book('--doctor', 'gehtweg', '--end-at', '2026-12-01T10:00')).code, 0);
  });

  it('corrects a service: a new price for what is booked afterwards, a retired service refused (422 SERVICE_RETIRED)', async () => {
    const control = jsonOf(
      await clinic('service', 'add', '--name', 'Kontrolle', '--duration-min', '30', '--price', '85.50', '--color', 'Green', '--json'),
    );
    assertMatchesSchema('Service', control);
    assert.deepEqual(Object.keys(control), ['id', 'name', 'duration_min', 'price', 'color', 'retired_at']);
    assert.equal(control.color, 'green');
    assert.equal(
      refusalOf(await clinic('service', 'add', '--name', 'kontrolle', '--duration-min', '20', '--price', '1', '--color', 'red', '--json'))
        .code,
      'SERVICE_NAME_TAKEN',
    );

    const booked = jsonOf<{ end_at: string; service_id: string }>(await book('--service', 'kontrolle'));
    const repriced = jsonOf(await clinic('service', 'edit', 'kontrolle', '--price', '92', '--duration-min', '40', '--json'));
    assert.deepEqual(repriced, { ...control, price: 92, duration_min: 40 });
    const people = await clinic('service', 'edit', 'kontrolle', '--price', '92.00');
    assert.match(people.stdout, /^Nothing to change: Kontrolle is as given\.$/m);
    assert.match(people.stdout, /^price +92\.00 EUR$/m);
    const after = jsonOf<{ end_at: string }>(await book('--service', 'kontrolle'));
    assert.equal(
      Date.parse(after.end_at) - Date.parse(booked.end_at),
      10 * 60_000,
      'the new length for the new booking, the old one keeps its end',
    );

    jsonOf(await clinic('service', 'retire', 'kontrolle', '--json'));
    const services = jsonOf<Listed[]>(await clinic('service', 'list', '--json'));
    assert.ok(!services.some((service) => service.id === control.id));
    const refused = refusalOf(await book('--service', control.id));
    assert.deepEqual([refused.code, refused.id], ['SERVICE_RETIRED', control.id]);
    const listed = await clinic('service', 'list', '--include-retired');
    assert.match(listed.stdout, /^id +name +duration_min +price +color +retired$/m);
    assert.match(listed.stdout, /Kontrolle +40 +92\.00 EUR +green +\d\d\.\d\d\.\d{4}$/m);
    jsonOf(await clinic('service', 'reinstate', control.id, '--json'));
    assert.equal((await book('--service', 'kontrolle')).code, 0);
  });

  it('records each correction as catalog.update naming what changed, no patient', async () => {
    const doctor = jsonOf(await clinic('doctor', 'add', '--name', 'Dr. Audit', '--color', '#123', '--json'));
    await clinic('doctor', 'edit', doctor.id, '--name', 'Dr. Audit-Neu', '--color', 'pink');
    await clinic('doctor', 'edit', doctor.id, '--color', 'pink');
    await clinic('doctor', 'retire', doctor.id);
    await clinic('doctor', 'reinstate', doctor.id);
    const events = jsonOf<{ action: string; patient_id: string | null; subject_type: string; subject_id: string; detail: unknown }[]>(
      await clinic('audit', 'list', '--json'),
    ).filter((event) => event.subject_id === doctor.id);
    assert.deepEqual(
      events.map((event) => [event.action, event.subject_type, event.patient_id, event.detail]),
      [
        ['catalog.update', 'catalog', null, { changed: ['color', 'name'] }],
        ['catalog.update', 'catalog', null, { changed: [] }],
        ['catalog.update', 'catalog', null, { changed: ['retired_at'] }],
        ['catalog.update', 'catalog', null, { changed: ['retired_at'] }],
      ],
    );
    const verify = await clinic('audit', 'verify', '--json');
    assert.equal(verify.code, 0, verify.stderr);
  });
});

import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { UPDATE_APPOINTMENT } from '../../../src/domain/appointments/update-appointment.js';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { outOfQuietHours } from '../../../src/domain/reminders/plan-reminders.js';
import { SET_REMINDERS, SHOW_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { parseTemplate, renderTemplate } from '../../../src/domain/reminders/reminder-templates.js';
import { setClinicCountry, setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase, type AnyUseCase } from '../../../src/domain/use-case.js';
import { AppError, ValidationError } from '../../../src/errors.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { seededRandom } from '../../helpers/random.js';
import { wallClockAt } from '../../../src/domain/validation/calendar.js';

/**
 * Reminder rules, quiet hours and templates, and the reminders planned with each booking and
 * change (interface 1.3.0, "Rules and templates", "Reminders"), on the program's clock moved by
 * the test: in the transaction of what changes them, for every front end alike.
 */
describe('reminders: rules, templates and planning (domain)', () => {
  const data = useTestDatabase({ each: true });
  afterEach(() => mock.timers.reset());
  const at = (iso: string) => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  };
  const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
  const run = <R>(useCase: AnyUseCase, request: object) => performUseCase(useCase as never, data.db, request, desk) as R;
  const setReminders = (body: object) =>
    run<{ settings: { rules: string[]; quiet_hours: string | null }; changed: string[] }>(SET_REMINDERS, { body });
  const refusal = (act: () => unknown) => {
    try {
      act();
    } catch (error) {
      if (error instanceof AppError) return [error.code, error.details];
      if (error instanceof ValidationError) return error.issues.map((found) => [found.loc.join('.'), found.msg]);
      throw error;
    }
    assert.fail('not refused');
  };
  /** The clinic in Vienna with a name, and rules. */
  const clinic = (rules: string[], quietHours = '20:00-08:00') => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    run(SET_CLINIC_NAME, { body: { name: 'Ordination Dr. Huber' } });
    setReminders({ before: rules, quiet_hours: quietHours });
  };
  const book = (start: string, end: string, patientId = createTestPatient(data.db).id) =>
    run<{ id: string }>(BOOK_APPOINTMENT, { body: { patient_id: patientId, start_at: start, end_at: end } });
  const reminders = (appointmentId: string) =>
    data.db
      .prepare('SELECT rule_ms / 60000 AS minutes, due_at, state, reason FROM reminders WHERE appointment_id = ? ORDER BY seq')
      .all(appointmentId) as { minutes: number; due_at: string; state: string; reason: string | null }[];
  const summary = (appointmentId: string) =>
    reminders(appointmentId).map((r) => `${r.minutes}m ${r.due_at} ${r.state}${r.reason ? ` ${r.reason}` : ''}`);

  it('starts with no rules, auto, 20:00-08:00 and the default templates, English until the country is AT or DE', () => {
    const shown = run<{ rules: string[]; channel: string; quiet_hours: string; templates: Record<string, string> }>(SHOW_REMINDERS, {});
    assert.deepEqual([shown.rules, shown.channel, shown.quiet_hours], [[], 'auto', '20:00-08:00']);
    assert.match(shown.templates.sms!, /^Hello \{first_name\}.*Reply C to confirm or X to cancel\.$/);
    setClinicCountry(data.db, 'at');
    const german = run<{ templates: Record<string, string> }>(SHOW_REMINDERS, {}).templates;
    assert.match(german.sms!, /^Hallo \{first_name\}.*Antworten Sie C zum Bestätigen oder X zum Absagen\.$/);
    assert.match(german.email!, /rufen Sie uns bitte an/);
  });

  it('keeps doctors and services out of every default template, which name who, when, where and how to answer', () => {
    for (const country of ['AT', 'DE', 'CH', 'GB']) {
      setClinicCountry(data.db, country);
      const { templates } = run<{ templates: Record<string, string> }>(SHOW_REMINDERS, {});
      for (const [name, template] of Object.entries(templates)) {
        const placeholders = parseTemplate(template, name).flatMap((piece) => ('placeholder' in piece ? [piece.placeholder] : []));
        assert.ok(!placeholders.includes('doctor') && !placeholders.includes('code'), `${country} ${name}`);
        if (name !== 'email_subject')
          for (const needed of ['first_name', 'date', 'time', 'clinic_name'])
            assert.ok(placeholders.includes(needed as never), `${country} ${name} ${needed}`);
      }
    }
  });

  it('needs the clinic name for a rule (422 SETTING_REQUIRED) and changes nothing then', () => {
    assert.deepEqual(
      refusal(() => setReminders({ before: ['1d'] })),
      ['SETTING_REQUIRED', { setting: 'name' }],
    );
    assert.deepEqual(run<{ rules: string[] }>(SHOW_REMINDERS, {}).rules, []);
    // Quiet hours and templates need no name.
    assert.deepEqual(setReminders({ quiet_hours: 'off' }).changed, ['quiet_hours']);
  });

  it('takes 1 to 5 distinct rules from 15m to 30d, shown longest first in their largest units', () => {
    run(SET_CLINIC_NAME, { body: { name: 'Praxis' } });
    assert.deepEqual(setReminders({ before: ['90m', '1d', ' 15m ', '30d'] }).settings.rules, ['30d', '1d', '1h30m', '15m']);
    assert.deepEqual(
      refusal(() => setReminders({ before: ['14m', '31d', '1d', '24h', 'soon'] })),
      [
        ['body.before.0', 'Value error, a rule is 15m to 30d before the start'],
        ['body.before.1', 'Value error, a rule is 15m to 30d before the start'],
        ['body.before.3', 'Value error, 1d is given twice'],
        ['body.before.4', 'Value error, expected a duration such as 24h, 30m, 1h30m or 3s (units d, h, m, s)'],
      ],
    );
    assert.equal((refusal(() => setReminders({ before: ['1d', '2d', '3d', '4d', '5d', '6d'] })) as string[][])[0]![0], 'body.before');
    assert.equal((refusal(() => setReminders({ before: ['1d'], off: true })) as string[][])[0]![0], 'body.off');
    assert.deepEqual(setReminders({ off: true }).settings.rules, []);
  });

  it('reads quiet hours as HH:MM-HH:MM or off, and refuses anything else', () => {
    assert.equal(setReminders({ quiet_hours: '21:30-07:00' }).settings.quiet_hours, '21:30-07:00');
    assert.equal(setReminders({ quiet_hours: 'OFF' }).settings.quiet_hours, null);
    for (const typed of ['20:00', '24:00-08:00', '8:00-20:00', '20:00-20:00', 'night']) {
      assert.equal((refusal(() => setReminders({ quiet_hours: typed })) as string[][])[0]![0], 'body.quiet_hours', typed);
    }
  });

  it('refuses a template with a {…} that is no placeholder (TEMPLATE_INVALID), takes {{ }} as braces, and renders', () => {
    for (const [template, placeholder] of [
      ['Hi {firstname}', '{firstname}'],
      ['Hi {first_name', '{first_name'],
      ['Hi } there', '}'],
      ['Hi {}', '{}'],
      ['{doctor_name}', '{doctor_name}'],
    ] as const) {
      assert.deepEqual(
        refusal(() => setReminders({ sms_template: template })),
        ['TEMPLATE_INVALID', { placeholder, template: 'sms_template' }],
        template,
      );
    }
    const values = { first_name: 'Lena', date: '30.11.2026', time: '14:00', clinic_name: 'Praxis', doctor: '', code: 'A-000041' };
    assert.equal(renderTemplate('{{x}} {first_name}: {date} {time}, {code}{doctor}.', values), '{x} Lena: 30.11.2026 14:00, A-000041.');
    assert.equal((refusal(() => setReminders({ email_subject: 'x'.repeat(201) })) as string[][])[0]![0], 'body.email_subject');
    assert.deepEqual(setReminders({ sms_template: 'C {{ok}} {first_name}' }).changed, ['sms_template']);
    assert.equal(run<{ templates: { sms: string } }>(SHOW_REMINDERS, {}).templates.sms, 'C {{ok}} {first_name}');
    assert.deepEqual(setReminders({ sms_template: 'C {{ok}} {first_name}' }).changed, []);
    assert.equal(
      (refusal(() => setReminders({ default_templates: true, email_subject: 'x' })) as string[][])[0]![0],
      'body.default_templates',
    );
    assert.deepEqual(setReminders({ default_templates: true }).changed, ['sms_template']);
  });

  it('plans one reminder per rule with the booking: start less the rule, a minute before quiet hours when within them', () => {
    at('2026-11-28T08:00:00Z');
    clinic(['1d', '2h', '30m']);
    // Monday 30.11.2026 08:30 in Vienna (07:30 UTC): 1d is Sunday 08:30; 2h is 06:30, within 20:00-08:00, so 19:59 the evening before.
    const early = book('2026-11-30T08:30:00', '2026-11-30T09:00:00');
    assert.deepEqual(summary(early.id), [
      '1440m 2026-11-29T07:30:00.000Z scheduled',
      '120m 2026-11-29T18:59:00.000Z scheduled',
      // 08:00: the quiet hours have ended.
      '30m 2026-11-30T07:00:00.000Z scheduled',
    ]);
    // 14:00: none moved.
    const afternoon = book('2026-11-30T14:00:00', '2026-11-30T14:30:00');
    assert.deepEqual(summary(afternoon.id), [
      '1440m 2026-11-29T13:00:00.000Z scheduled',
      '120m 2026-11-30T11:00:00.000Z scheduled',
      '30m 2026-11-30T12:30:00.000Z scheduled',
    ]);
  });

  it('skips a reminder already due when booked (too_late), and plans none for an appointment in the past', () => {
    at('2026-11-30T10:00:00Z');
    clinic(['1d', '2h', '30m'], 'off');
    const soon = book('2026-11-30T12:00:00Z', '2026-11-30T12:30:00Z');
    assert.deepEqual(summary(soon.id), [
      '1440m 2026-11-29T12:00:00.000Z skipped too_late',
      '120m 2026-11-30T10:00:00.000Z skipped too_late',
      '30m 2026-11-30T11:30:00.000Z scheduled',
    ]);
    assert.deepEqual(summary(book('2026-11-30T09:00:00Z', '2026-11-30T09:30:00Z').id), []);
  });

  it('withdraws them when the appointment is moved (and plans anew) or ends, in the same transaction', () => {
    at('2026-11-28T08:00:00Z');
    clinic(['1d'], 'off');
    const moved = book('2026-12-02T10:00:00Z', '2026-12-02T10:30:00Z');
    run(UPDATE_APPOINTMENT, {
      path: { appointment_id: moved.id },
      body: { start_at: '2026-12-03T10:00:00Z', end_at: '2026-12-03T10:30:00Z' },
    });
    assert.deepEqual(summary(moved.id), [
      '1440m 2026-12-01T10:00:00.000Z withdrawn rescheduled',
      '1440m 2026-12-02T10:00:00.000Z scheduled',
    ]);
    // Only the title changed: nothing moves.
    run(UPDATE_APPOINTMENT, { path: { appointment_id: moved.id }, body: { title: 'Kontrolle' } });
    assert.equal(reminders(moved.id).length, 2);
    for (const status of ['cancelled', 'no_show', 'arrived'] as const) {
      const ended = book('2026-12-04T10:00:00Z', '2026-12-04T10:30:00Z');
      run(UPDATE_APPOINTMENT, { path: { appointment_id: ended.id }, body: { status } });
      assert.deepEqual(summary(ended.id), [`1440m 2026-12-03T10:00:00.000Z withdrawn ${status}`]);
    }
    // A refused move (into another doctor's... here: an end before the start) leaves the reminders as they were.
    assert.ok(refusal(() => run(UPDATE_APPOINTMENT, { path: { appointment_id: moved.id }, body: { start_at: '2026-12-05T10:00:00Z' } })));
    assert.deepEqual(summary(moved.id), [
      '1440m 2026-12-01T10:00:00.000Z withdrawn rescheduled',
      '1440m 2026-12-02T10:00:00.000Z scheduled',
    ]);
  });

  it('follows new rules and quiet hours: removed rules withdrawn (rules_changed), added ones planned, due times moved', () => {
    at('2026-11-28T08:00:00Z');
    clinic(['1d', '2h'], 'off');
    const appointment = book('2026-11-30T06:30:00Z', '2026-11-30T07:00:00Z');
    const past = book('2026-11-28T07:00:00Z', '2026-11-28T07:30:00Z');
    assert.deepEqual(setReminders({ before: ['2h', '3d'] }).changed, ['reminder_rules']);
    assert.deepEqual(summary(appointment.id), [
      '1440m 2026-11-29T06:30:00.000Z withdrawn rules_changed',
      '120m 2026-11-30T04:30:00.000Z scheduled',
      '4320m 2026-11-27T06:30:00.000Z skipped too_late',
    ]);
    assert.deepEqual(summary(past.id), []);
    // 04:30 UTC is 05:30 in Vienna: within 20:00-08:00, so 19:59 the evening before (18:59 UTC).
    setReminders({ quiet_hours: '20:00-08:00' });
    assert.equal(reminders(appointment.id)[1]!.due_at, '2026-11-29T18:59:00.000Z');
    setReminders({ quiet_hours: 'off' });
    assert.equal(reminders(appointment.id)[1]!.due_at, '2026-11-30T04:30:00.000Z');
    // At 21:00 Vienna on the 29th, quiet hours from 20:00 would move it to 19:59, already past: too late.
    at('2026-11-29T20:00:00Z');
    setReminders({ quiet_hours: '20:00-08:00' });
    assert.deepEqual([reminders(appointment.id)[1]!.state, reminders(appointment.id)[1]!.reason], ['skipped', 'too_late']);
  });

  it('moves a due time out of quiet hours to a minute before they begin, across midnight and daylight saving', () => {
    const vienna = 'Europe/Vienna';
    const quiet = { from: 20 * 60, to: 8 * 60 };
    const moved = (iso: string, hours = quiet) => new Date(outOfQuietHours(Date.parse(iso), hours, vienna)).toISOString();
    assert.equal(moved('2026-11-30T06:59:00Z'), '2026-11-29T18:59:00.000Z'); // 07:59 local
    assert.equal(moved('2026-11-30T07:00:00Z'), '2026-11-30T07:00:00.000Z'); // 08:00 local: not quiet
    assert.equal(moved('2026-11-30T18:59:00Z'), '2026-11-30T18:59:00.000Z'); // 19:59 local
    assert.equal(moved('2026-11-30T19:00:00Z'), '2026-11-30T18:59:00.000Z'); // 20:00 local
    // The night of 28 to 29 March 2027 (summer time from 02:00): 06:00 summer time is 04:00 UTC, the evening before 18:59 UTC.
    assert.equal(moved('2027-03-28T04:00:00Z'), '2027-03-27T18:59:00.000Z');
    // Quiet hours within a day, and from midnight.
    assert.equal(moved('2026-11-30T12:00:00Z', { from: 12 * 60, to: 14 * 60 }), '2026-11-30T10:59:00.000Z');
    assert.equal(moved('2026-11-30T02:00:00Z', { from: 0, to: 6 * 60 }), '2026-11-29T22:59:00.000Z');
  });

  it('moves due times as a wall clock read minute by minute does, in zones with odd offsets and changes', () => {
    // The reference: back minute by minute to the last one before the quiet hours began, read on the zone's wall clock.
    const reference = (dueMs: number, quiet: { from: number; to: number }, zone: string) => {
      const minuteOf = (ms: number) => {
        const clock = wallClockAt(zone, ms);
        return clock.hour * 60 + clock.minute;
      };
      const isQuiet = (m: number) => (quiet.from < quiet.to ? m >= quiet.from && m < quiet.to : m >= quiet.from || m < quiet.to);
      if (!isQuiet(minuteOf(dueMs))) return dueMs;
      let at = Math.floor(dueMs / 60_000) * 60_000;
      while (isQuiet(minuteOf(at)) || minuteOf(at) !== (quiet.from + 24 * 60 - 1) % (24 * 60)) at -= 60_000;
      return at;
    };
    const random = seededRandom(46);
    const zones = ['Europe/Vienna', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham'];
    // Any day of 2027, and the hours after each of the zone's changes of offset: due times a minute apart or so.
    const offsetAt = (zone: string, ms: number) => {
      const clock = wallClockAt(zone, ms);
      return Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute) - Math.floor(ms / 60_000) * 60_000;
    };
    const samples: [string, number][] = [];
    for (const zone of zones) {
      for (let day = 0; day < 365; day++) {
        const noon = Date.parse('2027-01-01T12:00:00Z') + day * 86_400_000;
        if (offsetAt(zone, noon) === offsetAt(zone, noon - 86_400_000)) continue;
        for (let k = 0; k < 60; k++) samples.push([zone, noon - 36 * 3_600_000 + random.integer(0, 36 * 60) * 60_000]);
      }
    }
    for (let i = 0; i < 600; i++)
      samples.push([
        zones[i % zones.length]!,
        Date.parse('2027-01-01T00:00:00Z') + random.integer(0, 365 * 24 * 60 - 1) * 60_000 + random.integer(0, 59) * 1000,
      ]);
    const quietHours = [
      { from: 20 * 60, to: 8 * 60 },
      { from: 22 * 60 + 30, to: 7 * 60 + 15 },
      { from: 0, to: 6 * 60 },
      { from: 12 * 60, to: 14 * 60 },
      { from: 1 * 60 + 30, to: 3 * 60 + 30 },
    ];
    samples.forEach(([zone, dueMs], i) => {
      const quiet = quietHours[i % quietHours.length]!;
      assert.equal(
        outOfQuietHours(dueMs, quiet, zone),
        reference(dueMs, quiet, zone),
        `${new Date(dueMs).toISOString()} in ${zone}, ${JSON.stringify(quiet)}`,
      );
    });
  });
});

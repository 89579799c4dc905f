import assert from 'node:assert/strict';
import { afterEach, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { UPDATE_APPOINTMENT } from '../../../src/domain/appointments/update-appointment.js';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { durationText } from '../../../src/domain/durations.js';
import { SET_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { setClinicCountry, setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { createTestPatient, text } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * SET_REMINDERS (`clinic reminders set`, interface 1.3.0 "Rules and templates"), rule by rule: the
 * rules, channel, quiet hours and templates it stores, refuses and records, and the planned
 * reminders it withdraws, plans and moves in the same transaction. The desk's options, printout
 * and exit codes: test/cli/commands/reminders.test.ts; planning at booking and rescheduling, and
 * the quiet-hours arithmetic across zones: test/domain/reminders/plan-reminders.test.ts.
 */

/** The appointments of the clinic, by what they are to its reminders. */
interface Given {
  /** Monday 30 November 2026, 11:00-11:30 in Vienna (10:00 UTC): two days ahead. */
  upcoming: string;
  /** Saturday 28 November 2026, 08:00-08:30 in Vienna: over when the request comes. */
  past: string;
  /** Tuesday 1 December 2026, 11:00 in Vienna, cancelled. */
  cancelled: string;
}

/** Saturday 28 November 2026, 09:00 in Vienna: the clock of every scenario, unless one moves it on. */
const NOW = '2026-11-28T08:00:00Z';

/** The program's clock set to `iso` (every "now" reads Date: style.md, "One clock"). */
const setClock = (iso: string) => {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
};
afterEach(() => mock.timers.reset());

const setReminders = (db: Db, body: Record<string, unknown>) => performUseCase(SET_REMINDERS, db, { body }, DESK_USER);

const book = (db: Db, start: string, end: string) =>
  performUseCase(
    BOOK_APPOINTMENT,
    db,
    { header: {}, body: { patient_id: createTestPatient(db).id, start_at: start, end_at: end } },
    DESK_USER,
  ).id;

/**
 * A clinic in Vienna named Praxis am Ring (or without a name), in `country`, with `reminders` set
 * first, and its three appointments booked then; `before` runs last (a later clock, say).
 */
const aClinic =
  (
    { name = 'Praxis am Ring', country, reminders }: { name?: string | null; country?: string; reminders?: Record<string, unknown> } = {},
    before: (db: Db) => void = () => {},
  ) =>
  (db: Db): Given => {
    setClock(NOW);
    setClinicTimeZone(db, 'Europe/Vienna');
    if (name !== null) performUseCase(SET_CLINIC_NAME, db, { body: { name } }, DESK_USER);
    if (country !== undefined) setClinicCountry(db, country);
    if (reminders !== undefined) setReminders(db, reminders);
    const cancelled = book(db, '2026-12-01T10:00:00Z', '2026-12-01T10:30:00Z');
    performUseCase(UPDATE_APPOINTMENT, db, { path: { appointment_id: cancelled }, body: { status: 'cancelled' } }, DESK_USER);
    const given = {
      upcoming: book(db, '2026-11-30T10:00:00Z', '2026-11-30T10:30:00Z'),
      past: book(db, '2026-11-28T07:00:00Z', '2026-11-28T07:30:00Z'),
      cancelled,
    };
    before(db);
    return given;
  };

const body = (values: Record<string, unknown>) => () => ({ body: values });

/** An appointment's reminders, in the order planned: `rule due_at state [reason]`. */
function remindersOf(db: Db, appointmentId: string): string[] {
  const rows = db
    .prepare('SELECT rule_ms, due_at, state, reason FROM reminders WHERE appointment_id = ? ORDER BY seq')
    .all(appointmentId) as { rule_ms: number; due_at: string; state: string; reason: string | null }[];
  return rows.map((row) => `${durationText(row.rule_ms)} ${row.due_at} ${row.state}${row.reason === null ? '' : ` ${row.reason}`}`);
}

/** The upcoming appointment's reminders under the rules 1d and 2h and the default quiet hours, as planned at booking. */
const PLANNED_1D_2H = ['1d 2026-11-29T10:00:00.000Z scheduled', '2h 2026-11-30T08:00:00.000Z scheduled'];

/**
 * Set: the settings as shown after it (`settings`), the names of what changed, recorded once as
 * setting.update; no change event (the settings are not in the feed). `then`: the reminders after.
 */
const set = (settings: Record<string, unknown>, changed: string[], then?: (db: Db) => void): Outcome => ({
  result: { settings, changed },
  audit: [{ action: 'setting.update', patient_id: null, subject_type: 'setting', subject_id: null, detail: { changed } }],
  changes: [],
  then,
});

/** Nothing changed: `changed` empty, nothing recorded, nothing written (the reminders as they were). */
const unchanged = (settings: Record<string, unknown>, then?: (db: Db) => void): Outcome => ({
  result: { settings, changed: [] },
  audit: [],
  changes: [],
  then,
});

/** Refused as off its schema, at these fields with these types. */
const invalid = (...issues: [type: string, loc: string][]): Outcome => ({
  invalid: issues.map(([, loc]) => loc),
  types: issues.map(([type]) => type),
});

const rules: Scenario<Given>[] = [
  {
    title: 'plans the first rules for every upcoming appointment, and none for one over or cancelled',
    given: aClinic(),
    request: body({ before: [' 2h ', '1d'] }),
    expect: (given) =>
      set({ rules: ['1d', '2h'] }, ['reminder_rules'], (db) => {
        assert.deepEqual(remindersOf(db, given.upcoming), PLANNED_1D_2H);
        assert.deepEqual([remindersOf(db, given.past), remindersOf(db, given.cancelled)], [[], []]);
      }),
  },
  {
    title: 'shows the rules longest first in their largest units, from 15m up to 30d',
    given: aClinic(),
    request: body({ before: ['90m', '15m', '30d', '1d'] }),
    expect: () => set({ rules: ['30d', '1d', '1h30m', '15m'] }, ['reminder_rules']),
  },
  {
    title: 'skips a reminder of an added rule whose time has passed (too_late)',
    given: aClinic(),
    request: body({ before: ['3d'] }),
    expect: (given) =>
      set({ rules: ['3d'] }, ['reminder_rules'], (db) =>
        assert.deepEqual(remindersOf(db, given.upcoming), ['3d 2026-11-27T10:00:00.000Z skipped too_late']),
      ),
  },
  {
    title: 'replaces the rules: those of a removed rule withdrawn (rules_changed), a kept one left, an added one planned',
    given: aClinic({ reminders: { before: ['1d', '2h'] } }),
    request: body({ before: ['2h', '30m'] }),
    expect: (given) =>
      set({ rules: ['2h', '30m'] }, ['reminder_rules'], (db) =>
        assert.deepEqual(remindersOf(db, given.upcoming), [
          '1d 2026-11-29T10:00:00.000Z withdrawn rules_changed',
          '2h 2026-11-30T08:00:00.000Z scheduled',
          '30m 2026-11-30T09:30:00.000Z scheduled',
        ]),
      ),
  },
  {
    title: 'removes the rules with off, withdrawing every scheduled reminder (rules_changed)',
    given: aClinic({ reminders: { before: ['1d', '2h'] } }),
    request: body({ off: true }),
    expect: (given) =>
      set({ rules: [] }, ['reminder_rules'], (db) =>
        assert.deepEqual(remindersOf(db, given.upcoming), [
          '1d 2026-11-29T10:00:00.000Z withdrawn rules_changed',
          '2h 2026-11-30T08:00:00.000Z withdrawn rules_changed',
        ]),
      ),
  },
  {
    title: 'takes the same rules written in other units and order as no change: records nothing, replans nothing',
    given: aClinic({ reminders: { before: ['1d', '2h'] } }),
    request: body({ before: ['120m', '24h'] }),
    expect: (given) => unchanged({ rules: ['1d', '2h'] }, (db) => assert.deepEqual(remindersOf(db, given.upcoming), PLANNED_1D_2H)),
  },
  {
    title: 'takes off without rules as no change',
    given: aClinic(),
    request: body({ off: true }),
    expect: () => unchanged({ rules: [] }),
  },
  {
    title: 'takes an empty request as no change, showing a new clinic: no rules, auto, 20:00-08:00',
    given: aClinic(),
    request: body({}),
    expect: () => unchanged({ rules: [], channel: 'auto', quiet_hours: '20:00-08:00' }),
  },
  {
    title: 'refuses a rule until the clinic has a name, which every reminder says (422 SETTING_REQUIRED)',
    given: aClinic({ name: null }),
    request: body({ before: ['1d'] }),
    expect: () => ({ refused: 'SETTING_REQUIRED', status: 422, message: /clinic settings set-name TEXT/ }),
  },
  {
    title: 'sets the channel and quiet hours of a clinic without a name: only rules need it',
    given: aClinic({ name: null }),
    request: body({ channel: 'email', quiet_hours: 'off' }),
    expect: () => set({ rules: [], channel: 'email', quiet_hours: null }, ['reminder_channel', 'quiet_hours']),
  },
  ...(
    [
      ['14m', 'just under 15 minutes'],
      ['899s', '14m59s'],
      ['31d', 'over 30 days'],
      ['30d1s', 'a second over 30 days'],
      ['1 day', 'not a duration'],
      ['1D', 'a unit in capitals'],
    ] as const
  ).map(([typed, what]): Scenario<Given> => ({
    title: `refuses the rule ${JSON.stringify(typed)}, ${what} (value_error at its index)`,
    given: aClinic(),
    request: body({ before: ['1d', typed] }),
    expect: () => invalid(['value_error', 'body.before.1']),
  })),
  {
    title: 'refuses a rule given twice, in whatever units (value_error at the repeat)',
    given: aClinic(),
    request: body({ before: ['1d', '2h', '24h'] }),
    expect: () => invalid(['value_error', 'body.before.2']),
  },
  {
    title: 'refuses no rules at all: off removes them (value_error)',
    given: aClinic(),
    request: body({ before: [] }),
    expect: () => invalid(['value_error', 'body.before']),
  },
  {
    title: 'refuses a sixth rule (too_long)',
    given: aClinic(),
    request: body({ before: ['1d', '2d', '3d', '4d', '5d', '6d'] }),
    expect: () => invalid(['too_long', 'body.before']),
  },
  {
    title: 'refuses rules and off together (value_error at off)',
    given: aClinic(),
    request: body({ before: ['1d'], off: true }),
    expect: () => invalid(['value_error', 'body.off']),
  },
  {
    title: 'refuses one rule not given as a list (list_type)',
    given: aClinic(),
    request: body({ before: '1d' }),
    expect: () => invalid(['list_type', 'body.before']),
  },
  {
    title: 'refuses every faulty field at once, changing nothing',
    given: aClinic(),
    request: body({ before: ['1d', 'x'.repeat(21)], quiet_hours: 'nights', channel: 'fax' }),
    expect: () => invalid(['string_too_long', 'body.before.1'], ['literal_error', 'body.channel'], ['value_error', 'body.quiet_hours']),
  },
];

const channel: Scenario<Given>[] = [
  {
    title: 'sends by SMS only when told to',
    given: aClinic({ reminders: { before: ['1d'] } }),
    request: body({ channel: 'sms' }),
    expect: () => set({ rules: ['1d'], channel: 'sms' }, ['reminder_channel']),
  },
  {
    title: 'takes the channel in force as no change',
    given: aClinic(),
    request: body({ channel: 'auto' }),
    expect: () => unchanged({ channel: 'auto' }),
  },
  {
    title: 'refuses a channel it does not have (literal_error)',
    given: aClinic(),
    request: body({ channel: 'fax' }),
    expect: () => invalid(['literal_error', 'body.channel']),
  },
];

const quietHours: Scenario<Given>[] = [
  {
    title: 'reads quiet hours with spaces around, and moves a scheduled reminder within them to a minute before they begin',
    given: aClinic({ reminders: { before: ['1d', '2h'] } }),
    request: body({ quiet_hours: ' 21:00-09:30 ' }),
    // The 2h reminder was due 09:00 in Vienna: now 20:59 the evening before; the 1d one (11:00) stays.
    expect: (given) =>
      set({ quiet_hours: '21:00-09:30' }, ['quiet_hours'], (db) =>
        assert.deepEqual(remindersOf(db, given.upcoming), [
          '1d 2026-11-29T10:00:00.000Z scheduled',
          '2h 2026-11-29T19:59:00.000Z scheduled',
        ]),
      ),
  },
  {
    title: 'moves it back when quiet hours are off, in any case',
    given: aClinic({ reminders: { before: ['1d', '2h'], quiet_hours: '21:00-09:30' } }),
    request: body({ quiet_hours: 'OFF' }),
    expect: (given) =>
      set({ quiet_hours: null }, ['quiet_hours'], (db) => assert.deepEqual(remindersOf(db, given.upcoming), PLANNED_1D_2H)),
  },
  {
    title: 'skips a reminder that new quiet hours would move into the past (too_late)',
    // Sunday 22:00 in Vienna: 20:59 has passed.
    given: aClinic({ reminders: { before: ['2h'] } }, () => setClock('2026-11-29T21:00:00Z')),
    request: body({ quiet_hours: '21:00-09:30' }),
    // The feed tells a reminder's move to skipped however it comes (clinic-api-1.3.md, "Feed types").
    expect: (given) => ({
      ...set({ quiet_hours: '21:00-09:30' }, ['quiet_hours'], (db) =>
        assert.deepEqual(remindersOf(db, given.upcoming), ['2h 2026-11-30T08:00:00.000Z skipped too_late']),
      ),
      changes: [
        {
          type: 'reminder.updated',
          dataIncludes: { appointment_id: given.upcoming, state: 'skipped', reason: 'too_late', channel: null },
        },
      ],
    }),
  },
  {
    title: 'takes the default quiet hours, 20:00-08:00, given again as no change',
    given: aClinic(),
    request: body({ quiet_hours: '20:00-08:00' }),
    expect: () => unchanged({ quiet_hours: '20:00-08:00' }),
  },
  ...['20:00', '24:00-08:00', '8:00-20:00', '20:00-20:00', '20:00-08:00:00', 'night'].map((typed): Scenario<Given> => ({
    title: `refuses the quiet hours ${JSON.stringify(typed)} (value_error)`,
    given: aClinic(),
    request: body({ quiet_hours: typed }),
    expect: () => invalid(['value_error', 'body.quiet_hours']),
  })),
];

/** Every placeholder, and braces written doubled. */
const EVERY_PLACEHOLDER = '{{Termin}} {first_name}: {date} {time}, {clinic_name}, {doctor} {code}';

const templates: Scenario<Given>[] = [
  {
    title: 'keeps an SMS template as written, with every placeholder and {{ }} for braces; the others stay the defaults',
    given: aClinic(),
    request: body({ sms_template: EVERY_PLACEHOLDER }),
    expect: () =>
      set({ templates: { sms: EVERY_PLACEHOLDER, email_subject: 'Your appointment on {date} at {time} at {clinic_name}' } }, [
        'sms_template',
      ]),
  },
  {
    title: "sets the e-mail's subject and text together, naming each, at their longest",
    given: aClinic(),
    request: body({ email_subject: text(200), email_template: text(5000) }),
    expect: () => set({ templates: { email_subject: text(200), email: text(5000) } }, ['email_subject', 'email_template']),
  },
  {
    title: 'takes a template given again as it is as no change',
    given: aClinic({ reminders: { sms_template: 'Termin {date} {time}' } }),
    request: body({ sms_template: 'Termin {date} {time}' }),
    expect: () => unchanged({ templates: { sms: 'Termin {date} {time}' } }),
  },
  {
    title: "puts the country's defaults back for all three, naming those that were the clinic's own",
    given: aClinic({ reminders: { sms_template: 'Termin {date}', email_subject: 'Termin' } }),
    request: body({ default_templates: true }),
    expect: () =>
      set({ templates: { sms: /^Hello \{first_name\}, your appointment/, email_subject: /^Your appointment on/ } }, [
        'sms_template',
        'email_subject',
      ]),
  },
  {
    title: 'shows a clinic in Austria the German defaults',
    given: aClinic({ country: 'AT' }),
    request: body({ channel: 'email' }),
    expect: () =>
      set(
        {
          templates: {
            sms: /^Hallo \{first_name\}, .*Antworten Sie C zum Bestätigen oder X zum Absagen\.$/,
            email_subject: 'Ihr Termin am {date} um {time} bei {clinic_name}',
            email: /rufen Sie uns bitte an/,
          },
        },
        ['reminder_channel'],
      ),
  },
  ...(
    [
      [
        'sms_template',
        'Hallo {vorname}',
        /^The SMS template: \{vorname\} is not a placeholder; use \{first_name\}, \{date\}, \{time\}, \{clinic_name\}, \{doctor\}, \{code\}, or \{\{ and \}\} for braces\.$/,
      ],
      ['sms_template', '{doctor_name} erwartet Sie', /^The SMS template: \{doctor_name\} is not/],
      ['email_subject', 'Termin } morgen', /^The e-mail's subject: \} is not a placeholder/],
      ['email_template', 'Hallo {first_name, bis morgen', /^The e-mail template: \{first_name, bis morgen is not a placeholder/],
      ['email_template', 'Hallo {}', /^The e-mail template: \{\} is not/],
    ] as const
  ).map(([name, template, message]): Scenario<Given> => ({
    title: `refuses the ${name} ${JSON.stringify(template)}, naming the template and what is no placeholder (422 TEMPLATE_INVALID)`,
    given: aClinic(),
    request: body({ [name]: template }),
    expect: () => ({ refused: 'TEMPLATE_INVALID', status: 422, message }),
  })),
  {
    title: 'refuses a faulty template given with good settings, changing none of them',
    given: aClinic({ reminders: { before: ['1d'] } }),
    request: body({ before: ['2h'], channel: 'sms', sms_template: 'Hallo {name}' }),
    expect: () => ({ refused: 'TEMPLATE_INVALID', status: 422, message: /\{name\}/ }),
  },
  ...(
    [
      ['sms_template', text(321), 'string_too_long'],
      ['email_subject', text(201), 'string_too_long'],
      ['email_template', text(5001), 'string_too_long'],
      ['sms_template', '', 'string_too_short'],
    ] as const
  ).map(([name, template, type]): Scenario<Given> => ({
    title: `refuses an ${name} of ${template.length} characters (${type})`,
    given: aClinic(),
    request: body({ [name]: template }),
    expect: () => invalid([type, `body.${name}`]),
  })),
  {
    title: 'refuses the defaults together with a template (value_error at default_templates)',
    given: aClinic(),
    request: body({ default_templates: true, email_subject: 'Termin' }),
    expect: () => invalid(['value_error', 'body.default_templates']),
  },
];

const roles: Scenario<Given>[] = [
  ...(['reception', 'practitioner', 'scheduler', 'billing'] as const).map((role): Scenario<Given> => ({
    title: `refuses a person in ${role}: only an admin sets reminders (403 ROLE_FORBIDDEN)`,
    given: aClinic(),
    request: body({ before: ['1d'] }),
    caller: { ...DESK_USER, roles: [role] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  })),
  {
    title: 'sets them for an admin',
    given: aClinic(),
    request: body({ before: ['1d'] }),
    caller: { ...DESK_USER, roles: ['admin'] },
    expect: () => set({ rules: ['1d'] }, ['reminder_rules']),
  },
];

describeScenarios('SET_REMINDERS: rules', SET_REMINDERS, rules);
describeScenarios('SET_REMINDERS: channel', SET_REMINDERS, channel);
describeScenarios('SET_REMINDERS: quiet hours', SET_REMINDERS, quietHours);
describeScenarios('SET_REMINDERS: templates', SET_REMINDERS, templates);
describeScenarios('SET_REMINDERS: who may', SET_REMINDERS, roles);

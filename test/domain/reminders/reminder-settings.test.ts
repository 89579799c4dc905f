import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  quietHoursOf,
  quietHoursText,
  reminderSettings,
  shownReminderSettings,
  templatesInForce,
  writeReminderSettings,
} from '../../../src/domain/reminders/reminder-settings.js';
import { setClinicCountry } from '../../../src/domain/settings.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

/**
 * How the clinic reminds (interface 1.3.0, `clinic reminders set|show`): the settings a new
 * clinic starts with, quiet hours as typed and shown, and the templates in force. Setting them
 * (SET_REMINDERS): test/domain/reminders/set-reminders.test.ts; `reminders show` at the desk:
 * test/cli/commands/reminders.test.ts.
 */

const HOUR = 3_600_000;

describe('reminder settings', () => {
  const data = useTestDatabase({ each: true });

  it('starts a new clinic with no rules, auto, quiet from 20:00 to 08:00, and the English defaults', () => {
    const settings = reminderSettings(data.db);
    assert.deepEqual(settings, { rules: [], channel: 'auto', quietHours: { from: 20 * 60, to: 8 * 60 }, ownTemplates: {} });
    const shown = shownReminderSettings(data.db, settings);
    assert.deepEqual([shown.rules, shown.channel, shown.quiet_hours], [[], 'auto', '20:00-08:00']);
    assert.match(shown.templates.sms, /^Hello \{first_name\}/);
  });

  it('reads quiet hours typed HH:MM-HH:MM, spaces around, over midnight or within a day', () => {
    assert.deepEqual(quietHoursOf('20:00-08:00'), { from: 1200, to: 480 });
    assert.deepEqual(quietHoursOf(' 21:30-07:15 '), { from: 1290, to: 435 });
    assert.deepEqual(quietHoursOf('12:00-14:00'), { from: 720, to: 840 });
    assert.deepEqual(quietHoursOf('00:00-23:59'), { from: 0, to: 1439 });
  });

  it('refuses quiet hours of no length, a time past 23:59, one written without two digits, or more than two times', () => {
    for (const typed of [
      '20:00-20:00',
      '24:00-08:00',
      '20:60-08:00',
      '8:00-20:00',
      '20:00-8:00',
      '2000-0800',
      '20:00',
      '20:00-08:00-09:00',
      'off',
      '',
    ])
      assert.equal(quietHoursOf(typed), undefined, typed);
  });

  it('shows quiet hours with two digits each, as they are typed, and none as null', () => {
    assert.equal(quietHoursText({ from: 0, to: 6 * 60 + 5 }), '00:00-06:05');
    assert.equal(quietHoursText(quietHoursOf('21:30-07:15')!), '21:30-07:15');
    assert.equal(quietHoursText(null), null);
  });

  it('keeps what is written, so that the planner and the sender read it at once', () => {
    const settings = {
      rules: [2 * 86_400_000, 2 * HOUR],
      channel: 'sms' as const,
      quietHours: null,
      ownTemplates: { sms: 'Termin {date} {time}' },
    };
    writeReminderSettings(data.db, settings);
    assert.deepEqual(reminderSettings(data.db), settings);
  });

  it('shows each rule in its largest units, in the order stored (longest first)', () => {
    const shown = shownReminderSettings(data.db, {
      ...reminderSettings(data.db),
      rules: [86_400_000 + 90 * 60_000, 90 * 60_000, 15 * 60_000],
    });
    assert.deepEqual(shown.rules, ['1d1h30m', '1h30m', '15m']);
  });

  it("puts the clinic's own templates in force and its country's defaults for the others, in its language", () => {
    setClinicCountry(data.db, 'AT');
    const templates = templatesInForce(data.db, { ...reminderSettings(data.db), ownTemplates: { email_subject: 'Termin am {date}' } });
    assert.equal(templates.email_subject, 'Termin am {date}');
    assert.match(templates.sms, /^Hallo \{first_name\}/);
    assert.match(templates.email, /^Guten Tag \{first_name\}/);
    // A new country changes the defaults, never what the clinic wrote.
    setClinicCountry(data.db, 'GB');
    const after = templatesInForce(data.db, { ...reminderSettings(data.db), ownTemplates: { email_subject: 'Termin am {date}' } });
    assert.deepEqual([after.email_subject, after.sms.slice(0, 6)], ['Termin am {date}', 'Hello ']);
  });
});

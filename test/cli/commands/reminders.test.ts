import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { createPatientArgs, twilioGatewayArgs } from '../../helpers/desk-args.js';
import { recordServerChannels } from '../../../src/domain/reminders/reminder-channels.js';

/** `clinic reminders set|show|list` and `settings set-name` at the desk (interface 1.3.0), as real processes. */
describe('clinic reminders at the desk', () => {
  const data = useTestDatabase({ each: true });
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir], { env: { TZ: 'UTC' } });
  /** `create-patient --json` with a name, an e-mail and a mobile number (and any further options): the Patient. */
  const createPatient = async (first: string, last: string, email: string, mobile: string, ...more: string[]) =>
    JSON.parse((await clinic(...createPatientArgs(first, last, email, mobile), ...more, '--json')).stdout) as {
      id: string;
      patient_number: string;
    };

  it('shows the settings in the documented shape, and refuses a rule until the clinic has a name', async () => {
    const shown = JSON.parse((await clinic('reminders', 'show', '--json')).stdout);
    assert.deepEqual(Object.keys(shown), ['rules', 'channel', 'quiet_hours', 'templates']);
    assert.deepEqual(Object.keys(shown.templates), ['sms', 'email_subject', 'email']);
    const refused = await clinic('reminders', 'set', '--before', '1d');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: SETTING_REQUIRED: .*clinic settings set-name TEXT/s);
    assert.equal(JSON.parse((await clinic('reminders', 'set', '--before', '1d', '--json')).stderr).detail.setting, 'name');
  });

  it('sets rules, channel, quiet hours and a template, says what changed, and names the option a refusal is about', async () => {
    assert.equal((await clinic('settings', 'set-name', 'Praxis am Ring')).code, 0);
    const set = await clinic('reminders', 'set', '--before', '2h', '--before', '1d', '--channel', 'email', '--quiet-hours', '21:00-07:30');
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /^Changed: reminder_rules, reminder_channel, quiet_hours\.$/m);
    assert.match(set.stdout, /^Rules {11}1d, 2h before the start$/m);
    const json = JSON.parse((await clinic('reminders', 'set', '--sms-template', 'Termin {date} {time}, {clinic_name}', '--json')).stdout);
    assert.deepEqual(
      [json.rules, json.channel, json.quiet_hours, json.templates.sms],
      [['1d', '2h'], 'email', '21:00-07:30', 'Termin {date} {time}, {clinic_name}'],
    );
    const again = await clinic('reminders', 'set', '--channel', 'email');
    assert.match(again.stdout, /^Nothing changed\.$/m);
    const refused = await clinic('reminders', 'set', '--before', '10m', '--sms-template', '{vorname}');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--before "10m": Value error, a rule is 15m to 30d before the start/);
    const template = await clinic('reminders', 'set', '--sms-template', 'Hallo {vorname}');
    assert.match(template.stderr, /^error: TEMPLATE_INVALID: The SMS template: \{vorname\} is not a placeholder/);
  });

  it('lists the reminders of a booking with their due times in clinic time, by day and patient', async () => {
    await clinic('settings', 'set-name', 'Praxis am Ring');
    // The clinic's zone said, not the machine's: the due times below are read in it.
    await clinic('settings', 'set-timezone', 'UTC');
    await clinic('reminders', 'set', '--before', '1d', '--quiet-hours', 'off');
    const patient = await createPatient('Lena', 'Gruber', 'l@example.org', '+436641234567');
    const booked = await clinic(
      'book-appointment',
      '--patient-id',
      patient.patient_number,
      '--start-at',
      '2030-03-05 10:00',
      '--end-at',
      '2030-03-05 10:30',
    );
    assert.equal(booked.code, 0, booked.stderr);
    const listed = await clinic('reminders', 'list', '--patient', patient.patient_number);
    assert.match(listed.stdout, /^Mon 04\.03\.2030 10:00 {2}1d {4}A-000001 {5}P-000001 {2}scheduled$/m);
    assert.deepEqual(
      JSON.parse((await clinic('reminders', 'list', '--date', '04.03.2030', '--json')).stdout).map((r: { rule: string }) => r.rule),
      ['1d'],
    );
    assert.equal((await clinic('reminders', 'list', '--date', '05.03.2030')).stdout, 'No reminders match.\n');
  });

  it('previews a day: each scheduled reminder as it would go out by the channels of the last serve, the others as they are', async () => {
    await clinic('settings', 'set-name', 'Praxis am Ring');
    await clinic('settings', 'set-timezone', 'UTC');
    await clinic('reminders', 'set', '--before', '1d', '--before', '2h', '--quiet-hours', 'off');
    const lena = await createPatient('Lena', 'Gruber', 'l@example.org', '+436641234567');
    const max = await createPatient('Max', 'Huber', 'm@example.org', '+436641234568', '--reminders-opt-out');
    await clinic('book-appointment', '--patient-id', lena.patient_number, '--start-at', '2030-03-05 10:00', '--end-at', '2030-03-05 10:30');
    await clinic('book-appointment', '--patient-id', max.patient_number, '--start-at', '2030-03-05 12:00', '--end-at', '2030-03-05 12:30');
    const without = await clinic('reminders', 'preview', '--date', '04.03.2030');
    assert.match(without.stdout, /^E-mail: none \(clinic serve last ran without --smtp-url\)/);
    assert.match(without.stdout, /^Mon 04\.03\.2030 10:00 {2}1d {4}A-000001 {5}P-000001 {2}would skip \(no_channel\)$/m);
    recordServerChannels(data.db, 'mail.praxis.lan:587');
    const preview = JSON.parse((await clinic('reminders', 'preview', '--date', '04.03.2030', '--json')).stdout) as Record<
      string,
      unknown
    >[];
    assert.deepEqual(
      preview.map((r) => [r.appointment_number, r.would, r.would_reason, r.to]),
      [
        ['A-000001', 'send', null, 'l@example.org'],
        ['A-000002', 'skip', 'opted_out', null],
      ],
    );
    assert.match(preview[0]!.subject as string, /^Your appointment on 05\.03\.2030 at 10:00 at Praxis am Ring$/);
    assert.equal(preview[0]!.state, 'scheduled', 'nothing changed');
    const shown = (await clinic('reminders', 'preview', '--date', '04.03.2030')).stdout;
    assert.match(shown, /^E-mail: through mail\.praxis\.lan:587/);
    // What the patient would read, under its reminder.
    assert.match(
      shown,
      /^The messages:\n {2}Mon 04\.03\.2030 10:00 {2}A-000001 {2}email to l@example\.org\n {4}Subject: Your appointment on 05\.03\.2030 at 10:00 at Praxis am Ring\n {4}Dear Lena,\n\n {4}/m,
    );
  });

  it('sets an SMS gateway with its token from a file, shows it without secrets, and removes it', async () => {
    const tokenFile = join(data.dataDir, '..', `twilio-token-${process.pid}.txt`);
    writeFileSync(tokenFile, 'tok-secret-123\n', { mode: 0o600 });
    try {
      const set = await clinic(...twilioGatewayArgs('AC0123456789', tokenFile, '+43720123456'));
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /^Sends to {2}https:\/\/api\.twilio\.com\/2010-04-01\/Accounts\/AC0123456789\/Messages\.json$/m);
      const shown = await clinic('sms-gateway', 'show', '--json');
      assert.deepEqual(JSON.parse(shown.stdout), {
        preset: 'twilio',
        url: 'https://api.twilio.com/2010-04-01/Accounts/AC0123456789/Messages.json',
        from: '+43720123456',
        headers: ['Authorization'],
        inbound: 'https://api.twilio.com/2010-04-01/Accounts/AC0123456789/Messages.json',
      });
      assert.ok(!`${shown.stdout}${(await clinic('sms-gateway', 'show')).stdout}`.includes('tok-secret-123'));
      const missing = await clinic(...twilioGatewayArgs('AC1', `${tokenFile}.nothing`, '+43720123456'));
      assert.equal(missing.code, 2);
      const generic = await clinic(
        'sms-gateway',
        'set',
        '--preset',
        'generic',
        '--url',
        'https://sms.example.org/send',
        '--body-template',
        '{"to": {to}}',
      );
      assert.equal(generic.code, 1);
      assert.match(generic.stderr, /^error: TEMPLATE_INVALID: The gateway's body template is not JSON/);
      assert.equal((await clinic('sms-gateway', 'remove')).stdout, 'SMS gateway removed: reminders go by e-mail, or are skipped.\n');
      assert.equal(JSON.parse((await clinic('sms-gateway', 'show', '--json')).stdout), null);
    } finally {
      rmSync(tokenFile, { force: true });
    }
  });

  it('lists the replies the desk must read, newest first, and every one with --all', async () => {
    await clinic('settings', 'set-timezone', 'UTC');
    const now = Date.now();
    const reply = data.db.prepare(
      'INSERT INTO reminder_replies (id, provider_id, received_at, from_number, text, outcome) VALUES (?, ?, ?, ?, ?, ?)',
    );
    reply.run(
      '9b2f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      'twilio:SM1',
      new Date(now - 3_600_000).toISOString(),
      '+436641234567',
      'Wann?',
      'unmatched',
    );
    reply.run(
      '8a1e2b3c-4d5e-4f6a-9b7c-8d9e0f1a2b3c',
      'twilio:SM2',
      new Date(now - 1_800_000).toISOString(),
      '+436641234568',
      'ja',
      'confirm',
    );
    reply.run(
      '7f0d1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b',
      'twilio:SM0',
      new Date(now - 40 * 86_400_000).toISOString(),
      '+436641234569',
      '?',
      'unknown',
    );
    const shown = await clinic('reminders', 'replies');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^Received {14}From {11}Outcome {4}Appointment {2}Patient {2}Text$/m);
    assert.match(shown.stdout, /\+436641234567 {2}unmatched/);
    assert.doesNotMatch(shown.stdout, /confirm|\+436641234569/);
    const all = JSON.parse((await clinic('reminders', 'replies', '--all', '--json')).stdout) as Record<string, unknown>[];
    assert.deepEqual(
      all.map((r) => [r.outcome, r.from, r.text]),
      [
        ['confirm', '+436641234568', 'ja'],
        ['unmatched', '+436641234567', 'Wann?'],
      ],
    );
    assert.deepEqual(Object.keys(all[0]!), [
      'id',
      'received_at',
      'from',
      'text',
      'outcome',
      'appointment_id',
      'appointment_number',
      'patient_id',
      'patient_number',
    ]);
  });
});

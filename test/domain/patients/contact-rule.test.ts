import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useTestDatabase, useTestServer } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { buildPatient, type PatientBody } from '../../helpers/builders.js';

/** `clinic settings set-contact-rule` and the desk's patients without an email (issue 42, finding 13). */
describe('clinic settings set-contact-rule: patients without an email at the desk (issue 42, finding 13)', () => {
  const data = useTestDatabase({ each: true });
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir], { env: { TZ: 'UTC' } });
  const hilde = [
    'create-patient',
    '--first-name',
    'Hilde',
    '--last-name',
    'Berger',
    '--date-of-birth',
    '1938-04-02',
    '--mobile',
    '0664 1234567',
  ];

  it('refuses a patient without an email under the default rule, naming it and the way out, within 100 columns', async () => {
    const refused = await clinic(...hilde);
    assert.equal(refused.code, 1);
    const lines = refused.stderr.trimEnd().split('\n');
    for (const line of lines) assert.ok([...line].length <= 100, `wider than 100 columns: ${line}`);
    assert.equal(lines[0], 'error: PATIENT_CONTACT_REQUIRED: A patient needs both an email address and a mobile number.');
    assert.equal(lines[1], "  The clinic's contact rule is email-and-mobile.");
    assert.match(refused.stderr, /hint: never invent an address: .*`clinic settings\s+set-contact-rule email-or-mobile`/s);
    const json = await clinic(...hilde, '--json');
    assert.equal(JSON.parse(json.stderr).detail.rule, 'email-and-mobile');
  });

  it('registers her once the rule is email-or-mobile, and shows and records the rule', async () => {
    const set = await clinic('settings', 'set-contact-rule', 'email-or-mobile');
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, 'Contact rule set to email-or-mobile: a patient needs an email address or a mobile number.\n');
    const shown = JSON.parse((await clinic('settings', 'show', '--json')).stdout) as Record<string, string>;
    assert.equal(shown.contact_rule, 'email-or-mobile');
    assert.equal(shown.contact_rule_source, 'setting');
    assert.match((await clinic('settings', 'show')).stdout, /^Contact {4}email-or-mobile \(set for this clinic\)$/m);

    const created = await clinic(...hilde);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'Patient P-000001 Hilde Berger created\nBorn    02.04.1938\nMobile  0664 1234567\n');
    const neither = await clinic('create-patient', '--first-name', 'Karl', '--last-name', 'Berger');
    assert.equal(neither.code, 1);
    assert.match(
      neither.stderr,
      /^error: PATIENT_CONTACT_REQUIRED: A patient needs an email address or a mobile number\.\n {2}The clinic's contact rule is email-or-mobile\.\n/,
    );

    const trail = JSON.parse((await clinic('audit', 'list', '--json')).stdout) as Record<string, unknown>[];
    const setting = trail.find((event) => event.action === 'setting.update')!;
    assert.deepEqual(
      [
        setting.seq,
        setting.patient_id,
        setting.patient_number,
        setting.subject_type,
        setting.subject_id,
        setting.actor_type,
        setting.detail,
      ],
      [1, null, null, 'setting', null, 'cli', { changed: ['contact_rule'] }],
    );
    assert.match((await clinic('audit', 'list')).stdout, /setting\.update: contact_rule/);
    const verify = await clinic('audit', 'verify', '--json');
    assert.equal(verify.code, 0, verify.stderr);
  });

  it('says when the rule in force stays, and records that nothing changed', async () => {
    const set = await clinic('settings', 'set-contact-rule', 'email-and-mobile');
    assert.equal(set.stdout, 'Contact rule stays email-and-mobile: a patient needs both an email address and a mobile number.\n');
    const trail = JSON.parse((await clinic('audit', 'list', '--json')).stdout) as Record<string, unknown>[];
    assert.deepEqual(
      trail.map((event) => [event.action, event.detail]),
      [['setting.update', { changed: [] }]],
    );
  });

  it('refuses a rule it does not know with the choices, and keeps the one in force', async () => {
    const refused = await clinic('settings', 'set-contact-rule', 'email');
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /<rule> "email": is not one of the choices \(literal_error\)\n {4}hint: one of: email-and-mobile, email-or-mobile, none/,
    );
    const shown = JSON.parse((await clinic('settings', 'show', '--json')).stdout) as Record<string, string>;
    assert.deepEqual([shown.contact_rule, shown.contact_rule_source], ['email-and-mobile', 'default']);
  });

  it('registers a patient with neither under none, and patient show prints no contact lines', async () => {
    assert.equal((await clinic('settings', 'set-contact-rule', 'none')).code, 0);
    const created = await clinic('create-patient', '--first-name', 'Karl', '--last-name', 'Berger', '--json');
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual([JSON.parse(created.stdout).email, JSON.parse(created.stdout).mobile], [null, null]);
    const show = await clinic('patient', 'show', 'P-1');
    assert.equal(show.code, 0, show.stderr);
    assert.doesNotMatch(show.stdout, /Mobile|Email/);
  });
});

/**
 * The clinic's contact rule (clinic-api-1.3.md, "Patients without e-mail"; issue 42, finding 13):
 * POST and PATCH /patients follow the rule the desk sets, on a running server at once.
 */
describe('POST and PATCH /patients under the clinic’s contact rule (issue 42, finding 13)', () => {
  const server = useTestServer();

  /** `clinic settings set-contact-rule RULE` at the desk, as another process beside the running server. */
  async function setRule(rule: string): Promise<void> {
    const set = await runClinic(['settings', 'set-contact-rule', rule, '--data', server.dataDir]);
    assert.equal(set.code, 0, set.stderr);
  }

  const count = () => (server.db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;

  /** A POST /patients body without the fields named. */
  function without(...names: (keyof PatientBody)[]): PatientBody {
    const body = buildPatient({ first_name: 'Hilde', last_name: 'Berger' });
    for (const name of names) delete body[name];
    return body;
  }

  /** Asserts a 422 PATIENT_CONTACT_REQUIRED that names `rule` in its message and in `detail.rule`, and that nothing was stored. */
  async function assertRefused(send: () => Promise<{ status: number; body: any }>, rule: string): Promise<void> {
    const before = count();
    const answer = await send();
    assert.equal(answer.status, 422);
    assert.equal(answer.body.detail.code, 'PATIENT_CONTACT_REQUIRED');
    assert.equal(answer.body.detail.rule, rule);
    assert.match(answer.body.detail.message, new RegExp(`contact rule is ${rule}\\.`));
    assert.equal(count(), before, 'nothing was stored');
  }

  it('keeps 1.0.0’s rule until the desk sets another: both, each refusal naming the rule', async () => {
    for (const missing of [['email'], ['mobile'], ['email', 'mobile']] as (keyof PatientBody)[][]) {
      await assertRefused(() => server.request('POST', '/patients', { body: without(...missing) }), 'email-and-mobile');
    }
    await assertRefused(() => server.request('POST', '/patients', { body: buildPatient({ email: '  ' }) }), 'email-and-mobile');
  });

  it('registers a patient without an email (or without a mobile) once the rule is email-or-mobile, but not one with neither', async () => {
    await setRule('email-or-mobile');
    const noEmail = await server.request('POST', '/patients', { body: without('email') });
    assert.equal(noEmail.status, 201);
    assert.equal(noEmail.body.email, null);
    assert.equal(noEmail.body.mobile, '+43 660 1234567');
    const noMobile = await server.request('POST', '/patients', { body: buildPatient({ mobile: null }) });
    assert.equal(noMobile.status, 201);
    await assertRefused(() => server.request('POST', '/patients', { body: without('email', 'mobile') }), 'email-or-mobile');
    await assertRefused(() => server.request('POST', '/patients', { body: buildPatient({ email: '', mobile: ' ' }) }), 'email-or-mobile');
  });

  it('registers a patient with neither under the rule none', async () => {
    await setRule('none');
    const neither = await server.request('POST', '/patients', { body: without('email', 'mobile') });
    assert.equal(neither.status, 201);
    assert.deepEqual([neither.body.email, neither.body.mobile], [null, null]);
  });

  it('refuses a PATCH that clears the contact the rule asks for, and no other', async () => {
    await setRule('email-or-mobile');
    const patient = (await server.request('POST', '/patients', { body: buildPatient() })).body;
    const cleared = await server.request('PATCH', `/patients/${patient.id}`, { body: { email: null } });
    assert.equal(cleared.status, 200, 'the mobile is left');
    await assertRefused(() => server.request('PATCH', `/patients/${patient.id}`, { body: { mobile: '' } }), 'email-or-mobile');
    await assertRefused(
      () => server.request('PATCH', `/patients/${patient.id}`, { body: { email: null, mobile: null } }),
      'email-or-mobile',
    );
    const swapped = await server.request('PATCH', `/patients/${patient.id}`, { body: { email: 'hilde@example.org', mobile: null } });
    assert.equal(swapped.status, 200, 'an email in place of the mobile');

    // Registered under a looser rule, the patient can still be corrected under a stricter one.
    await setRule('email-and-mobile');
    const notes = await server.request('PATCH', `/patients/${patient.id}`, { body: { notes: 'hard of hearing' } });
    assert.equal(notes.status, 200);
    const added = await server.request('PATCH', `/patients/${patient.id}`, { body: { phone: '01 234 5678' } });
    assert.equal(added.status, 200);
    await assertRefused(() => server.request('PATCH', `/patients/${patient.id}`, { body: { email: ' ' } }), 'email-and-mobile');
    assert.equal((await server.request('GET', `/patients/${patient.id}`)).body.version, 5, 'the refusals changed nothing');
  });
});

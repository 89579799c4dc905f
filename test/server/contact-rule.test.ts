import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPatient, type PatientBody } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { runClinic } from '../helpers/run-cli.js';

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

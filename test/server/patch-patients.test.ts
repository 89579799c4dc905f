import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { buildPatient, createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

/** PATCH /patients/{patient_id} (clinic-api-1.2.md, "Patients"), on the real server. */
/**
 * PATCH /patients/{patient_id} on the real server: its ETag, its media types, its refusals as the
 * API gives them, and what the other endpoints find after it. Its rules are UPDATE_PATIENT's table
 * (test/domain/patients/update-patient.test.ts).
 */
describe('PATCH /patients/{patient_id}', () => {
  const server = useTestServer();
  const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request('PATCH', `/patients/${id}`, { body, headers });
  const read = async (id: string) => (await server.request('GET', `/patients/${id}`)).body as Patient;
  const found = async (q: string) =>
    ((await server.request('GET', `/patients?q=${encodeURIComponent(q)}`)).body as Patient[]).map((p) => p.patient_number);

  it('sets the fields it names, counts the version up, and answers the patient with its ETag', async () => {
    const patient = createTestPatient(server.db, { mobile: '+43 660 1111111', notes: 'old note' });
    assert.equal(patient.version, 1);
    const answer = await patch(patient.id, { mobile: '+43 660 2222222', notes: null });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('etag'), '"2"');
    assert.equal(answer.body.version, 2);
    assert.equal(answer.body.mobile, '+43 660 2222222');
    assert.equal(answer.body.notes, null);
    assert.equal(answer.body.first_name, patient.first_name, 'an absent field stays');
    assert.ok(answer.body.updated_at > patient.updated_at);
    assert.deepEqual(await read(patient.id), answer.body);
    const get = await server.request('GET', `/patients/${patient.id}`);
    assert.equal(get.headers.get('etag'), '"2"');
  });

  it('finds the patient by its new name and phone at once, and no longer by the old ones', async () => {
    const patient = createTestPatient(server.db, { first_name: 'Rosalind', last_name: 'Quarkfeld', mobile: '+43 664 9876543' });
    assert.deepEqual(await found('quarkfeld'), [patient.patient_number]);
    await patch(patient.id, { last_name: 'Zwirbel-Quast', mobile: '0699 5550123' });
    assert.deepEqual(await found('quarkfeld'), []);
    assert.deepEqual(await found('zwirbel rosalind'), [patient.patient_number]);
    assert.deepEqual(await found('5550123'), [patient.patient_number]);
    assert.deepEqual(await found('9876543'), []);
  });

  it('answers a refusal with its status and code: 422 with every failing field, 404, 412, 422 PATIENT_CONTACT_REQUIRED', async () => {
    const patient = createTestPatient(server.db);
    const invalid = await patch(patient.id, { last_name: null, date_of_birth: '1985-13-01' });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.')).sort(), [
      'body.date_of_birth',
      'body.last_name',
    ]);
    const unknown = await patch('00000000-0000-4000-8000-000000000000', { title: 'x' });
    assert.deepEqual([unknown.status, unknown.body.detail.code], [404, 'PATIENT_NOT_FOUND']);
    const stale = await patch(patient.id, { title: 'B' }, { 'if-match': '"9"' });
    assert.deepEqual([stale.status, stale.body.detail.code], [412, 'PRECONDITION_FAILED']);
    const contact = await patch(patient.id, { email: null });
    assert.deepEqual([contact.status, contact.body.detail.code], [422, 'PATIENT_CONTACT_REQUIRED']);
    assert.equal((await read(patient.id)).version, 1);
  });

  it('refuses a body that is no JSON object, and a media type that is no JSON', async () => {
    const patient = createTestPatient(server.db);
    const list = await patch(patient.id, [1]);
    assert.equal(list.status, 422);
    assert.equal(list.body.detail[0].type, 'model_attributes_type');
    const text = await server.request('PATCH', `/patients/${patient.id}`, { rawBody: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 415);
  });

  it('takes application/merge-patch+json', async () => {
    const patient = createTestPatient(server.db);
    const answer = await server.request('PATCH', `/patients/${patient.id}`, {
      rawBody: JSON.stringify({ title: 'Dr.' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.title, 'Dr.');
  });

  it('keeps an inactive patient, found by search and read by id with is_active false', async () => {
    const patient = createTestPatient(server.db, buildPatient({ last_name: 'Inaktivberg' }));
    const answer = await patch(patient.id, { is_active: false });
    assert.equal(answer.body.is_active, false);
    assert.equal(answer.body.version, 2);
    const list = await server.request('GET', '/patients?q=inaktivberg');
    assert.deepEqual(
      list.body.map((p: Patient) => [p.patient_number, p.is_active]),
      [[patient.patient_number, false]],
    );
  });

  it('needs the patients:write scope', async () => {
    const patient = createTestPatient(server.db);
    const readOnly = server.createKey(['patients:read']);
    const answer = await server.request('PATCH', `/patients/${patient.id}`, { body: { title: 'x' }, key: readOnly });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.detail.code, 'FORBIDDEN');
  });
});

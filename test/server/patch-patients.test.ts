import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { buildPatient, createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

/** PATCH /patients/{patient_id} (clinic-api-1.2.md, "Patients"), on the real server. */
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

  it('answers a patch that changes nothing with the patient as it is: same version and updated_at', async () => {
    const patient = createTestPatient(server.db);
    for (const body of [
      {},
      { first_name: patient.first_name, mobile: patient.mobile },
      { unknown_field: 1, id: 'x', patient_number: 'P-9' },
    ]) {
      const answer = await patch(patient.id, body);
      assert.equal(answer.status, 200, JSON.stringify(body));
      assert.equal(answer.body.version, 1);
      assert.equal(answer.body.updated_at, patient.updated_at);
      assert.equal(answer.body.id, patient.id);
      assert.equal(answer.body.patient_number, patient.patient_number);
    }
  });

  it('merges portal_access key by key', async () => {
    const patient = createTestPatient(server.db, { portal_access: { invoices: true } });
    const answer = await patch(patient.id, { portal_access: { xrays: true } });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.portal_access.invoices, true, 'kept');
    assert.equal(answer.body.portal_access.xrays, true, 'set');
    assert.equal(answer.body.portal_access.scans, false, 'as before');
  });

  it('refuses null for a field that may not be null, every failing field at once, and changes nothing', async () => {
    const patient = createTestPatient(server.db);
    const answer = await patch(patient.id, { last_name: null, portal_access: null, date_of_birth: '1985-13-01', first_name: 'Ok' });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.')).sort(), [
      'body.date_of_birth',
      'body.last_name',
      'body.portal_access',
    ]);
    assert.deepEqual(await read(patient.id), await read(patient.id));
    assert.equal((await read(patient.id)).first_name, patient.first_name);
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

  it('refuses an email or mobile set to null or blank with PATIENT_CONTACT_REQUIRED', async () => {
    const patient = createTestPatient(server.db);
    for (const body of [{ email: null }, { mobile: '   ' }, { email: '' }]) {
      const answer = await patch(patient.id, body);
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.equal(answer.body.detail.code, 'PATIENT_CONTACT_REQUIRED');
    }
    assert.equal((await read(patient.id)).version, 1);
  });

  it('applies a patch whose If-Match names the stored version or *, and refuses another with 412', async () => {
    const patient = createTestPatient(server.db);
    assert.equal((await patch(patient.id, { title: 'A' }, { 'if-match': '"1"' })).status, 200);
    const stale = await patch(patient.id, { title: 'B' }, { 'if-match': '"1"' });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.detail.code, 'PRECONDITION_FAILED');
    for (const tag of ['W/"2"', '2', '"3"']) assert.equal((await patch(patient.id, { title: 'B' }, { 'if-match': tag })).status, 412, tag);
    assert.equal((await read(patient.id)).title, 'A', 'nothing changed');
    assert.equal((await patch(patient.id, { title: 'C' }, { 'if-match': '"1", "2"' })).status, 200);
    assert.equal((await patch(patient.id, { title: 'D' }, { 'if-match': '*' })).status, 200);
    assert.equal((await read(patient.id)).version, 4);
  });

  it('checks in order: 422 schema, 404, 412, then the coded 422', async () => {
    const patient = createTestPatient(server.db);
    const unknown = '00000000-0000-4000-8000-000000000000';
    assert.equal((await patch(unknown, { last_name: null })).status, 422);
    assert.equal((await patch(unknown, { title: 'x' }, { 'if-match': '"9"' })).body.detail.code, 'PATIENT_NOT_FOUND');
    assert.equal((await patch('not-a-uuid', {})).body.detail[0].loc.join('.'), 'path.patient_id');
    assert.equal((await patch(patient.id, { email: null }, { 'if-match': '"9"' })).status, 412);
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

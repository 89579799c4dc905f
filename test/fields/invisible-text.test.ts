import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { buildPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

// Issue 39, L5: a zero-width space or a soft hyphen in a name printed like `Zürcher`, but
// `zürcher` did not find it. Black box over HTTP.

const ZWSP = '\u200b';
const SOFT_HYPHEN = '\u00ad';
const RLO = '\u202e';
const PDF = '\u202c';

describe('L5: names with characters that print as nothing (issue 39)', () => {
  const server = useTestServer();

  const create = (body: Record<string, unknown>) => server.request('POST', '/patients', { body: buildPatient(body) });
  const search = async (q: string) => {
    const found = await server.request<Patient[]>('GET', `/patients?q=${encodeURIComponent(q)}`);
    assert.equal(found.status, 200);
    return found.body.map((patient) => patient.patient_number);
  };

  it('stores and answers a name without its zero-width spaces, soft hyphens and bidi controls, and finds it as it prints', async () => {
    const created = await create({ first_name: `E${SOFT_HYPHEN}va${ZWSP}`, last_name: `Z${ZWSP}ür${SOFT_HYPHEN}cher` });
    assert.equal(created.status, 201);
    assert.deepEqual([created.body.first_name, created.body.last_name], ['Eva', 'Zürcher']);
    const read = await server.request<Patient>('GET', `/patients/${created.body.id}`);
    assert.deepEqual([read.body.first_name, read.body.last_name], ['Eva', 'Zürcher']);
    assert.deepEqual(await search('zürcher'), [created.body.patient_number]);
    assert.deepEqual(await search('zurcher eva'), [created.body.patient_number]);
    // A query copied with such a character finds the same.
    assert.deepEqual(await search(`Zü${ZWSP}rcher`), [created.body.patient_number]);

    const reversed = await create({ first_name: 'Mara', last_name: `${RLO}Quellenhof${PDF}` });
    assert.equal(reversed.body.last_name, 'Quellenhof');
    assert.deepEqual(await search('quellenhof'), [reversed.body.patient_number]);
  });

  it('PATCH stores a name without them too; a patch that only adds them changes nothing', async () => {
    const created = await create({ first_name: 'Jonas', last_name: 'Pfeffer' });
    const patched = await server.request<Patient>('PATCH', `/patients/${created.body.id}`, {
      body: { last_name: `Pfef${ZWSP}fer${SOFT_HYPHEN}`, first_name: `Jo${SOFT_HYPHEN}nas` },
    });
    assert.equal(patched.status, 200);
    assert.deepEqual([patched.body.last_name, patched.body.first_name, patched.body.version], ['Pfeffer', 'Jonas', 1]);
    const renamed = await server.request<Patient>('PATCH', `/patients/${created.body.id}`, { body: { last_name: `Pfeffer${ZWSP}-Salz` } });
    assert.deepEqual([renamed.body.last_name, renamed.body.version], ['Pfeffer-Salz', 2]);
    assert.deepEqual(await search('salz'), [created.body.patient_number]);
  });

  it('refuses a name made of nothing else as too short (422 string_too_short), storing nothing', async () => {
    const before = await search('invisible');
    const refused = await create({ first_name: 'Invisible', last_name: `${ZWSP}${SOFT_HYPHEN}\u2060\ufeff` });
    assert.equal(refused.status, 422);
    assert.deepEqual(
      refused.body.detail.map((item: { type: string; loc: unknown[] }) => [item.type, item.loc]),
      [['string_too_short', ['body', 'last_name']]],
    );
    assert.deepEqual(await search('invisible'), before, 'no patient was created');

    const created = await create({ first_name: 'Ida', last_name: 'Sichtbar' });
    const patch = await server.request('PATCH', `/patients/${created.body.id}`, { body: { first_name: `${RLO}${PDF}` } });
    assert.equal(patch.status, 422);
    assert.deepEqual(patch.body.detail[0].loc, ['body', 'first_name']);
    assert.equal(patch.body.detail[0].type, 'string_too_short');
    assert.equal((await server.request<Patient>('GET', `/patients/${created.body.id}`)).body.first_name, 'Ida');
  });

  it('counts a name’s 128 characters without them', async () => {
    const created = await create({ first_name: 'Lang', last_name: `${'a'.repeat(128)}${ZWSP.repeat(10)}` });
    assert.equal(created.status, 201);
    assert.equal(created.body.last_name, 'a'.repeat(128));
  });

  it('keeps the zero-width non-joiner a Persian name needs, and finds the name typed with or without it', async () => {
    const persian = 'ماه\u200cپاره';
    const created = await create({ first_name: persian, last_name: 'Rahimi' });
    assert.equal(created.body.first_name, persian);
    assert.deepEqual(await search('ماهپاره'), [created.body.patient_number]);
    assert.deepEqual(await search(persian), [created.body.patient_number]);
  });
});

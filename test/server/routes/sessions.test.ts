import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PAIR_DEVICE, type PairedDevice } from '../../../src/domain/people/devices.js';
import { ADD_PERSON } from '../../../src/domain/people/persons.js';
import { connectionRunner, runUseCase, type AnyUseCase } from '../../../src/domain/use-case.js';
import { SESSION_KEYS } from '../../helpers/api-shapes.js';
import { useTestServer } from '../../helpers/fixtures.js';

/**
 * A person's session at a desk PC over the API (clinic-api-1.3.md, "Sessions"): POST /sessions
 * (createSession) through the PC's Clinic-Device, GET and DELETE /sessions/current; what a login
 * answers and refuses, when a session ends, and that looking at it is no use of it.
 */

/** The OS user at the server PC, who adds the people and pairs the PCs. */
const OS_USER = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'server-pc', requestId: null } };

const MINUTE = 60_000;

describe('server: sessions at a desk PC (POST /sessions, GET and DELETE /sessions/current)', () => {
  const server = useTestServer();
  /** The desk PC the tests log in through: its device token and id. */
  let pc: { token: string; id: string };

  const run = <R>(useCase: AnyUseCase, request: object): R =>
    runUseCase(useCase, server.db, request, OS_USER, connectionRunner(server.db)) as R;

  /** POST /sessions from `device` (the test's PC unless given; `null` sends none). */
  const login = (body: object, device: string | null = pc.token) =>
    server.request('POST', '/sessions', { key: null, headers: device === null ? {} : { 'clinic-device': device }, body });

  /** A person added with `roles`, who set their PIN with the setup code (as `staff set-pin` does over the API). */
  const addPerson = async (name: string, roles: string, pin: string) => {
    const added = run<{ id: string; setup_code: string }>(ADD_PERSON, { body: { name, roles } });
    const set = await login({ person: name, pin: added.setup_code, new_pin: pin });
    assert.equal(set.status, 201, set.text);
    return added.id;
  };

  /** Headers of a request as `token`'s person from the PC (or another device). */
  const asPerson = (token: string, device = pc.token) => ({
    key: null,
    headers: { authorization: `Bearer ${token}`, 'clinic-device': device },
  });

  /** Moves a session's times as the clock would have: its last use `idleMinutes` ago, its end as given. */
  const age = (sessionId: string, columns: { idleMinutes?: number; expiresInMinutes?: number }) => {
    const at = (minutes: number) => new Date(Date.now() + minutes * MINUTE).toISOString();
    if (columns.idleMinutes !== undefined)
      server.db.prepare('UPDATE sessions SET last_used_at = ? WHERE id = ?').run(at(-columns.idleMinutes), sessionId);
    if (columns.expiresInMinutes !== undefined)
      server.db.prepare('UPDATE sessions SET expires_at = ? WHERE id = ?').run(at(columns.expiresInMinutes), sessionId);
  };

  before(async () => {
    run(ADD_PERSON, { body: { name: 'Anna Admin', roles: 'admin' } });
    const { code } = run<PairedDevice>(PAIR_DEVICE, { body: { name: 'Reception 2' } });
    const joined = await server.request('POST', '/desk/join', { key: null, body: { code, host_name: 'reception-2' } });
    assert.equal(joined.status, 201, joined.text);
    // The device token is shown once: no cache may keep the answer that carries it.
    assert.equal(joined.headers.get('cache-control'), 'no-store');
    pc = { token: joined.body.device_token, id: joined.body.device_id };
  });

  it('logs a person in by name in any case or by id: 201 with the Session and its token, stored by no cache', async () => {
    const personId = await addPerson('Rita Reception', 'reception,billing', '573920');
    for (const person of ['rita reception', personId]) {
      const response = await login({ person, pin: '573920' });
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(Object.keys(response.body), [...SESSION_KEYS, 'token']);
      assert.match(response.body.token, /^cls_/);
      assert.deepEqual(
        [response.body.person_id, response.body.person_name, response.body.roles, response.body.device_id, response.body.device_name],
        [personId, 'Rita Reception', ['reception', 'billing'], pc.id, 'Reception 2'],
      );
      const { created_at, last_used_at, idle_expires_at, expires_at } = response.body;
      assert.equal(last_used_at, created_at);
      assert.equal(Date.parse(idle_expires_at) - Date.parse(last_used_at), 30 * MINUTE);
      assert.equal(Date.parse(expires_at) - Date.parse(created_at), 12 * 60 * MINUTE);
      assert.equal(response.headers.get('cache-control'), 'no-store');
    }
  });

  it('refuses a login without its PC, of nobody, with a wrong PIN or setup code, or before a PIN is set; each 401 asks for Bearer', async () => {
    await addPerson('Bea Billing', 'billing', '715029');
    const added = run<{ setup_code: string }>(ADD_PERSON, { body: { name: 'Neu Noch', roles: 'scheduler' } });
    const refusals: [object, string | null, string, Record<string, unknown>][] = [
      [{ person: 'Bea Billing', pin: '715029' }, null, 'DEVICE_UNKNOWN', {}],
      [{ person: 'Bea Billing', pin: '715029' }, 'cld_not-a-device', 'DEVICE_UNKNOWN', {}],
      [{ person: 'Nobody Here', pin: '715029' }, pc.token, 'LOGIN_FAILED', { reason: 'unknown_person' }],
      [{ person: 'Bea Billing', pin: '000001' }, pc.token, 'LOGIN_FAILED', { reason: 'wrong_pin', attempts_left: 4 }],
      [{ person: 'Neu Noch', pin: 'AAAA-BBBB-CCCC', new_pin: '482913' }, pc.token, 'LOGIN_FAILED', { reason: 'wrong_code' }],
      [{ person: 'Neu Noch', pin: '482913' }, pc.token, 'PIN_NOT_SET', {}],
    ];
    for (const [body, device, code, fields] of refusals) {
      const response = await login(body, device);
      const { code: sent, message: _message, ...detail } = response.body.detail;
      assert.deepEqual([response.status, sent, detail, response.headers.get('www-authenticate')], [401, code, fields, 'Bearer'], code);
    }
    // The setup code sets a PIN once, and only a PIN that is not guessed first (422 PIN_INVALID, as createSession documents it).
    const weak = await login({ person: 'Neu Noch', pin: added.setup_code, new_pin: '123456' });
    assert.deepEqual([weak.status, weak.body.detail.code, weak.body.detail.reason], [422, 'PIN_INVALID', 'sequence']);
    assert.equal((await login({ person: 'Neu Noch', pin: added.setup_code, new_pin: '640281' })).status, 201);
    const used = await login({ person: 'Neu Noch', pin: added.setup_code, new_pin: '640282' });
    assert.deepEqual([used.status, used.body.detail.code], [401, 'LOGIN_FAILED'], 'a setup code used twice');
    assert.equal((await login({ person: 'Neu Noch', pin: '640281' })).status, 201);
  });

  it('locks a person after five wrong PINs in a row: every login then, the right PIN too, is 423 PERSON_LOCKED until 15 minutes on', async () => {
    await addPerson('Lena Locked', 'reception', '482913');
    const left = [];
    for (let attempt = 0; attempt < 4; attempt++)
      left.push((await login({ person: 'Lena Locked', pin: '000000' })).body.detail.attempts_left);
    assert.deepEqual(left, [4, 3, 2, 1]);
    const fifth = await login({ person: 'Lena Locked', pin: '000000' });
    const right = await login({ person: 'Lena Locked', pin: '482913' });
    for (const response of [fifth, right]) {
      assert.deepEqual([response.status, response.body.detail.code], [423, 'PERSON_LOCKED']);
      const lockedFor = Date.parse(response.body.detail.locked_until) - Date.now();
      assert.ok(lockedFor > 14 * MINUTE && lockedFor <= 15 * MINUTE, `locked for ${lockedFor} ms`);
      assert.ok(
        Math.abs(Number(response.headers.get('retry-after')) - lockedFor / 1000) <= 1,
        `Retry-After ${response.headers.get('retry-after')}`,
      );
    }
  });

  it('shows the session of the request without counting it as use: its idle end stays where the last use left it', async () => {
    await addPerson('Paul Praxis', 'practitioner', '583920');
    const { token, id } = (await login({ person: 'Paul Praxis', pin: '583920' })).body;
    age(id, { idleMinutes: 29 });
    const looked = await server.request('GET', '/sessions/current', asPerson(token));
    assert.equal(looked.status, 200, looked.text);
    assert.deepEqual(Object.keys(looked.body), SESSION_KEYS);
    assert.ok(Date.now() - Date.parse(looked.body.last_used_at) >= 29 * MINUTE, `last used ${looked.body.last_used_at}`);
    const again = await server.request('GET', '/sessions/current', asPerson(token));
    assert.equal(again.body.last_used_at, looked.body.last_used_at, 'looking counted as use');
    // Any other request is a use: it moves the idle end on.
    assert.equal((await server.request('GET', '/doctors', asPerson(token))).status, 200);
    const used = await server.request('GET', '/sessions/current', asPerson(token));
    assert.ok(Date.now() - Date.parse(used.body.last_used_at) < MINUTE, `last used ${used.body.last_used_at}`);
  });

  it('ends a session 30 minutes after its last use and 12 hours after its login: 401 SESSION_ENDED with the reason', async () => {
    await addPerson('Ida Idle', 'scheduler', '640281');
    const idle = (await login({ person: 'Ida Idle', pin: '640281' })).body;
    age(idle.id, { idleMinutes: 30 });
    const ended = await server.request('GET', '/sessions/current', asPerson(idle.token));
    assert.deepEqual([ended.status, ended.body.detail.code, ended.body.detail.reason], [401, 'SESSION_ENDED', 'idle']);
    const late = (await login({ person: 'Ida Idle', pin: '640281' })).body;
    age(late.id, { idleMinutes: 1, expiresInMinutes: 0 });
    const expired = await server.request('GET', '/doctors', asPerson(late.token));
    assert.deepEqual([expired.status, expired.body.detail.reason], [401, 'expired']);
  });

  it('logs out with 204 and no body; the session is then ended for every request, and a new login on the PC replaces an open one', async () => {
    await addPerson('Olga Out', 'reception', '715029');
    const first = (await login({ person: 'Olga Out', pin: '715029' })).body.token;
    const second = (await login({ person: 'Olga Out', pin: '715029' })).body.token;
    const replaced = await server.request('GET', '/sessions/current', asPerson(first));
    assert.deepEqual([replaced.status, replaced.body.detail.reason], [401, 'replaced']);
    const out = await server.request('DELETE', '/sessions/current', asPerson(second));
    assert.deepEqual([out.status, out.text], [204, '']);
    for (const method of ['GET', 'DELETE']) {
      const after = await server.request(method, '/sessions/current', asPerson(second));
      assert.deepEqual([after.status, after.body.detail.code, after.body.detail.reason], [401, 'SESSION_ENDED', 'logged_out'], method);
    }
  });

  it('refuses an API key on the operations of a session with 403 SESSION_REQUIRED, and a session from another PC with DEVICE_UNKNOWN', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await server.request(method, '/sessions/current');
      assert.deepEqual([response.status, response.body.detail.code], [403, 'SESSION_REQUIRED'], method);
    }
    await addPerson('Sam Second', 'scheduler', '583921');
    const { token } = (await login({ person: 'Sam Second', pin: '583921' })).body;
    const { code } = run<PairedDevice>(PAIR_DEVICE, { body: { name: 'Room 3' } });
    const other = (await server.request('POST', '/desk/join', { key: null, body: { code, host_name: 'room-3' } })).body.device_token;
    const elsewhere = await server.request('GET', '/sessions/current', asPerson(token, other));
    assert.deepEqual([elsewhere.status, elsewhere.body.detail.code], [401, 'DEVICE_UNKNOWN']);
    assert.equal((await server.request('GET', '/sessions/current', asPerson(token))).status, 200, 'the session ended when shown elsewhere');
  });
});

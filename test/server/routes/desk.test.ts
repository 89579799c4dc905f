import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { updatePersonRow } from '../../../src/db/persons.js';
import { LIST_DEVICES, PAIR_DEVICE, REVOKE_DEVICE, type PairedDevice } from '../../../src/domain/people/devices.js';
import { ADD_PERSON, DISABLE_PERSON, ENABLE_PERSON, findPerson } from '../../../src/domain/people/persons.js';
import { hashPin } from '../../../src/domain/people/pin.js';
import { connectionRunner, runUseCase, type AnyUseCase } from '../../../src/domain/use-case.js';
import { buildPatient, idempotencyHeader } from '../../helpers/builders.js';
import { multipartBody } from '../../helpers/multipart.js';
import { useTestServer } from '../../helpers/fixtures.js';
import type { TestServer } from '../../helpers/test-server.js';

/** The OS user at the server PC, who pairs the PCs and adds the people here. */
const osUser = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'server-pc', requestId: null } };

const run = <R>(server: TestServer, useCase: AnyUseCase, request: object): R =>
  runUseCase(useCase, server.db, request, osUser, connectionRunner(server.db)) as R;

/** A person with a PIN, as `staff add` and `set-pin` leave them. */
function addPerson(server: TestServer, name: string, role: string, pin: string): void {
  run(server, ADD_PERSON, { body: { name, roles: role } });
  updatePersonRow(server.db, { ...findPerson(server.db, name)!, pin_hash: hashPin(pin) });
}

/** A desk PC paired on the server PC and joined over the API: its device token. */
async function joinedPc(server: TestServer, name: string): Promise<{ token: string; id: string }> {
  const { code } = run<PairedDevice>(server, PAIR_DEVICE, { body: { name } });
  const joined = await server.request('POST', '/desk/join', { key: null, body: { code, host_name: `${name.toLowerCase()}-pc` } });
  assert.equal(joined.status, 201, joined.text);
  return { token: joined.body.device_token, id: joined.body.device_id };
}

/** A person's login at a desk PC: the session's token. */
async function logIn(server: TestServer, device: string, person: string, pin: string): Promise<string> {
  const login = await server.request('POST', '/sessions', { key: null, headers: { 'clinic-device': device }, body: { person, pin } });
  assert.equal(login.status, 201, login.text);
  return login.body.token;
}

const asPerson = (device: string, session: string) => ({
  key: null,
  headers: { authorization: `Bearer ${session}`, 'clinic-device': device },
});

describe('desk PCs over the API: pairing, sessions, desk commands (interface 1.3.0)', () => {
  const server = useTestServer();

  before(() => {
    addPerson(server, 'Anna Admin', 'admin', '482913');
    addPerson(server, 'Rita Reception', 'reception', '573920');
    addPerson(server, 'Bea Billing', 'billing', '715029');
  });

  it("checks a session's roles on every operation, an upload too (row 13: admin, reception, practitioner)", async () => {
    const pc = await joinedPc(server, 'Back Office');
    const bea = await logIn(server, pc.token, 'Bea Billing', '715029');
    const patient = await server.request('POST', '/patients', { body: buildPatient() });
    const form = multipartBody([{ name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.4\n') }]);
    const upload = await server.request('POST', `/patients/${patient.body.id}/documents`, {
      ...asPerson(pc.token, bea),
      rawBody: form.body,
      headers: { ...asPerson(pc.token, bea).headers, 'content-type': form.contentType },
    });
    assert.deepEqual(
      [upload.status, upload.body.detail.code, upload.body.detail.allowed_roles],
      [403, 'ROLE_FORBIDDEN', ['admin', 'reception', 'practitioner']],
    );
    const documents = await server.request('GET', `/patients/${patient.body.id}/documents`);
    assert.equal(documents.body.length, 0);
    // Billing reads invoices (row 14) but does not register patients (row 7).
    assert.equal((await server.request('GET', '/invoices', asPerson(pc.token, bea))).status, 200);
    const create = await server.request('POST', '/patients', { ...asPerson(pc.token, bea), body: buildPatient() });
    assert.deepEqual([create.status, create.body.detail.code], [403, 'ROLE_FORBIDDEN']);
  });

  it('joins a PC once with its code: a used, wrong or expired code is 401 PAIRING_CODE_INVALID', async () => {
    const { code } = run<PairedDevice>(server, PAIR_DEVICE, { body: { name: 'Room 1' } });
    const first = await server.request('POST', '/desk/join', { key: null, body: { code: code.toLowerCase(), host_name: 'room-1' } });
    assert.equal(first.status, 201, first.text);
    assert.match(first.body.device_token, /^cld_/);
    assert.equal(first.body.device_name, 'Room 1');
    const again = await server.request('POST', '/desk/join', { key: null, body: { code, host_name: 'room-1' } });
    assert.equal(again.status, 401);
    assert.equal(again.body.detail.code, 'PAIRING_CODE_INVALID');
    const wrong = await server.request('POST', '/desk/join', { key: null, body: { code: 'AAAA-BBBB-CCCC', host_name: 'x' } });
    assert.equal(wrong.body.detail.code, 'PAIRING_CODE_INVALID');
    // Paired again while pending: a new code, and the old one stops working.
    const older = run<PairedDevice>(server, PAIR_DEVICE, { body: { name: 'Room 2' } });
    const newer = run<PairedDevice>(server, PAIR_DEVICE, { body: { name: 'room 2' } });
    assert.equal(newer.device.id, older.device.id);
    assert.equal((await server.request('POST', '/desk/join', { key: null, body: { code: older.code, host_name: 'x' } })).status, 401);
    assert.equal((await server.request('POST', '/desk/join', { key: null, body: { code: newer.code, host_name: 'x' } })).status, 201);
    // A joined name is taken.
    assert.throws(() => run(server, PAIR_DEVICE, { body: { name: 'ROOM 1' } }), { code: 'DEVICE_NAME_TAKEN' });
    const listed = run<{ name: string; state: string; host_name: string | null }[]>(server, LIST_DEVICES, {});
    assert.deepEqual(
      listed.filter((device) => device.name.startsWith('Room')).map((device) => [device.name, device.state, device.host_name]),
      [
        ['Room 1', 'joined', 'room-1'],
        ['Room 2', 'joined', 'x'],
      ],
    );
  });

  it('logs a person in through the PC, names them and the PC in the audit trail, and ends the session on logout', async () => {
    const pc = await joinedPc(server, 'Reception 2');
    const session = await logIn(server, pc.token, 'anna admin', '482913');
    const current = await server.request('GET', '/sessions/current', asPerson(pc.token, session));
    assert.equal(current.status, 200);
    assert.deepEqual([current.body.person_name, current.body.roles, current.body.device_name], ['Anna Admin', ['admin'], 'Reception 2']);
    const created = await server.request('POST', '/patients', { ...asPerson(pc.token, session), body: buildPatient() });
    assert.equal(created.status, 201, created.text);
    const trail = await server.request('GET', `/audit-events?patient_id=${created.body.id}`);
    const event = trail.body.find((e: { action: string }) => e.action === 'patient.create');
    assert.deepEqual([event.actor_type, event.actor_name, event.source], ['person', 'Anna Admin', 'Reception 2 (127.0.0.1)']);
    // The session must go with the PC it was made through.
    const other = await joinedPc(server, 'Reception 3');
    const elsewhere = await server.request('GET', '/patients', asPerson(other.token, session));
    assert.deepEqual([elsewhere.status, elsewhere.body.detail.code], [401, 'DEVICE_UNKNOWN']);
    assert.equal((await server.request('DELETE', '/sessions/current', asPerson(pc.token, session))).status, 204);
    const ended = await server.request('GET', '/patients', asPerson(pc.token, session));
    assert.deepEqual([ended.status, ended.body.detail.code, ended.body.detail.reason], [401, 'SESSION_ENDED', 'logged_out']);
  });

  it('refuses a wrong PIN with the attempts left, and a new login on the PC replaces its session', async () => {
    const pc = await joinedPc(server, 'Reception 4');
    const wrong = await server.request('POST', '/sessions', {
      key: null,
      headers: { 'clinic-device': pc.token },
      body: { person: 'Rita Reception', pin: '000001' },
    });
    assert.deepEqual(
      [wrong.status, wrong.body.detail.code, wrong.body.detail.reason, wrong.body.detail.attempts_left],
      [401, 'LOGIN_FAILED', 'wrong_pin', 4],
    );
    const noDevice = await server.request('POST', '/sessions', { key: null, body: { person: 'Rita Reception', pin: '573920' } });
    assert.deepEqual([noDevice.status, noDevice.body.detail.code], [401, 'DEVICE_UNKNOWN']);
    const first = await logIn(server, pc.token, 'Rita Reception', '573920');
    await logIn(server, pc.token, 'Anna Admin', '482913');
    const replaced = await server.request('GET', '/sessions/current', asPerson(pc.token, first));
    assert.deepEqual([replaced.status, replaced.body.detail.reason], [401, 'replaced']);
  });

  it('runs a desk command as the person from the PC, with its roles, and refuses what only the server PC runs', async () => {
    const pc = await joinedPc(server, 'Reception 5');
    const rita = await logIn(server, pc.token, 'Rita Reception', '573920');
    const command = (argv: string[], headers: Record<string, string> = {}) =>
      server.request('POST', '/desk/commands', {
        ...asPerson(pc.token, rita),
        headers: { ...asPerson(pc.token, rita).headers, ...headers },
        body: { argv },
      });
    const made = await command([
      'create-patient',
      '--first-name',
      'Lena',
      '--last-name',
      'Desk',
      '--date-of-birth',
      '1990-02-03',
      '--email',
      'l@d.at',
      '--mobile',
      '+436641112233',
    ]);
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.exit_code, 0, made.body.stderr);
    assert.match(made.body.stdout, /^Patient P-\d+ Lena Desk created/);
    const found = await command(['patient', 'find', 'Desk', '--json']);
    assert.equal(JSON.parse(found.body.stdout).length, 1);
    // Reception neither lists keys (admin) nor refunds: refused by the role matrix, exit 1 in a 200.
    const keys = await command(['api-key', 'list']);
    assert.equal(keys.body.exit_code, 1);
    assert.match(keys.body.stderr, /^error: ROLE_FORBIDDEN/);
    const backup = await command(['backup', '/tmp/nowhere.clinic-backup']);
    assert.deepEqual([backup.status, backup.body.detail.code], [403, 'SERVER_PC_ONLY']);
    const key = await server.request('POST', '/desk/commands', { body: { argv: ['patient', 'find', 'Desk'] } });
    assert.deepEqual([key.status, key.body.detail.code], [403, 'SESSION_REQUIRED']);
    const trail = await server.request('GET', '/audit-events?action=patient.search');
    assert.equal(trail.body.at(-1).source, 'Reception 5 (127.0.0.1)');
    assert.equal(trail.body.at(-1).actor_name, 'Rita Reception');
  });

  it('answers a command sent again with its Idempotency-Key once: the first answer replayed, nothing made twice', async () => {
    const pc = await joinedPc(server, 'Reception 6');
    const rita = await logIn(server, pc.token, 'Rita Reception', '573920');
    const argv = [
      'create-patient',
      '--first-name',
      'Otto',
      '--last-name',
      'Twice',
      '--date-of-birth',
      '1970-01-01',
      '--email',
      'o@t.at',
      '--mobile',
      '+436649998877',
    ];
    const send = (body: object) =>
      server.request('POST', '/desk/commands', {
        ...asPerson(pc.token, rita),
        headers: { ...asPerson(pc.token, rita).headers, 'idempotency-key': 'desk-otto-1' },
        body,
      });
    const [first, second] = await Promise.all([send({ argv }), send({ argv })]);
    assert.equal(first.body.stdout, second.body.stdout);
    assert.deepEqual([first.headers.has('idempotent-replayed') || second.headers.has('idempotent-replayed')], [true]);
    const patients = await server.request('GET', '/patients?q=Twice');
    assert.equal(patients.body.length, 1);
    const other = await send({ argv: ['patient', 'find', 'Twice'] });
    assert.deepEqual([other.status, other.body.detail.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it("takes a command with the desk PC's file as a form: part `command` and the file named by its option", async () => {
    const pc = await joinedPc(server, 'Reception 7');
    const rita = await logIn(server, pc.token, 'Rita Reception', '573920');
    const patient = await server.request('POST', '/patients', { body: buildPatient({ last_name: 'Formed' }) });
    const argv = ['upload-document', '--patient-id', patient.body.patient_number, '--file', '/home/rita/Befund März.pdf', '--json'];
    const send = (parts: Parameters<typeof multipartBody>[0], key?: string) => {
      const { body, contentType } = multipartBody(parts);
      const person = asPerson(pc.token, rita);
      return server.request('POST', '/desk/commands', {
        ...person,
        rawBody: body,
        headers: { ...person.headers, 'content-type': contentType, ...idempotencyHeader(key) },
      });
    };
    const command = (line: string[]) => ({ name: 'command', contentType: 'application/json', data: JSON.stringify({ argv: line }) });
    const file = (data: string) => ({
      name: 'file',
      filenameStar: "utf-8''Befund%20M%C3%A4rz.pdf",
      contentType: 'application/octet-stream',
      data,
    });
    const tmp = () => readdirSync(join(server.dataDir, 'tmp'));

    const stored = await send([command(argv), file('%PDF-1.4 findings')], 'desk-form-1');
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.exit_code, 0, stored.body.stderr);
    const document = JSON.parse(stored.body.stdout);
    assert.deepEqual([document.filename, document.content_type, document.size], ['Befund März.pdf', 'application/pdf', 17]);
    assert.deepEqual(tmp(), [], "the server's copy is removed once the command ends");
    // The same key, command line and bytes: the first answer; other bytes are another request.
    const again = await send([command(argv), file('%PDF-1.4 findings')], 'desk-form-1');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.stdout, stored.body.stdout);
    const otherBytes = await send([command(argv), file('%PDF-1.4 other findings')], 'desk-form-1');
    assert.deepEqual([otherBytes.status, otherBytes.body.detail.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
    // Without its file, the command names a file of the desk PC, which the server never reads.
    const without = await send([command(argv)]);
    assert.equal(without.body.exit_code, 2);
    assert.match(without.body.stderr.replace(/\s+/g, ' '), /--file .*was not sent with the command/);
    for (const refused of [
      await send([file('no command part')]),
      await send([command(argv), { name: 'etc-passwd', filename: 'x', data: 'x' }]),
      await send([{ name: 'command', data: '{not json' }, file('x')]),
    ]) {
      assert.equal(refused.status, 422, refused.text);
    }
    assert.deepEqual(tmp(), [], 'a refused form leaves no file behind');
    const documents = await server.request('GET', `/patients/${patient.body.id}/documents`);
    assert.equal(documents.body.length, 1);
  });

  it("refuses a disabled person's next request at once (401 PERSON_DISABLED), their login too, until enabled again", async () => {
    addPerson(server, 'Dora Doktor', 'practitioner', '640281');
    const pc = await joinedPc(server, 'Room 5');
    const dora = await logIn(server, pc.token, 'Dora Doktor', '640281');
    assert.equal((await server.request('GET', '/patients', asPerson(pc.token, dora))).status, 200);
    run(server, DISABLE_PERSON, { path: { person: 'dora doktor' } });
    const refused = await server.request('GET', '/patients', asPerson(pc.token, dora));
    assert.deepEqual([refused.status, refused.body.detail.code], [401, 'PERSON_DISABLED']);
    const login = await server.request('POST', '/sessions', {
      key: null,
      headers: { 'clinic-device': pc.token },
      body: { person: 'Dora Doktor', pin: '640281' },
    });
    assert.deepEqual([login.status, login.body.detail.code], [401, 'PERSON_DISABLED']);
    run(server, ENABLE_PERSON, { path: { person: 'dora doktor' } });
    const again = await logIn(server, pc.token, 'Dora Doktor', '640281');
    assert.equal((await server.request('GET', '/patients', asPerson(pc.token, again))).status, 200);
  });

  it('refuses a revoked PC at once, its sessions with it, while the server runs', async () => {
    const pc = await joinedPc(server, 'Laptop');
    const anna = await logIn(server, pc.token, 'Anna Admin', '482913');
    assert.equal((await server.request('GET', '/patients', asPerson(pc.token, anna))).status, 200);
    run(server, REVOKE_DEVICE, { path: { device: 'laptop' } });
    const refused = await server.request('GET', '/patients', asPerson(pc.token, anna));
    assert.deepEqual([refused.status, refused.body.detail.code], [401, 'DEVICE_REVOKED']);
    const login = await server.request('POST', '/sessions', {
      key: null,
      headers: { 'clinic-device': pc.token },
      body: { person: 'Anna Admin', pin: '482913' },
    });
    assert.equal(login.body.detail.code, 'DEVICE_REVOKED');
  });

  it('serves a desk of a minor one apart and refuses one further with VERSION_UNSUPPORTED, naming what to install', async () => {
    const ok = await server.request('GET', '/doctors', { headers: { 'clinic-version': '1.3.0' } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('clinic-version')!, /^\d+\.\d+\.\d+$/);
    const far = await server.request('GET', '/doctors', { headers: { 'clinic-version': '1.9.0' } });
    assert.deepEqual([far.status, far.body.detail.code, far.body.detail.desk_version], [400, 'VERSION_UNSUPPORTED', '1.9.0']);
    assert.ok(far.body.detail.accepted.includes('1.3'));
    const garbled = await server.request('GET', '/doctors', { headers: { 'clinic-version': 'one' } });
    assert.equal(garbled.body.detail.code, 'VERSION_UNSUPPORTED');
  });
});

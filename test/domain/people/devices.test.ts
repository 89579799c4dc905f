import assert from 'node:assert/strict';
import { afterEach, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import {
  authenticateDevice,
  deviceActor,
  joinDevice,
  PAIR_DEVICE,
  REVOKE_DEVICE,
  type PairedDevice,
} from '../../../src/domain/people/devices.js';
import { ADD_PERSON } from '../../../src/domain/people/persons.js';
import { logIn } from '../../../src/domain/people/sessions.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { NOT_JOINED_YET } from '../../helpers/builders.js';
import { SHOWN_ONE_TIME_CODE } from '../../helpers/one-time-codes.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * The clinic's desk PCs, rule by rule: PAIR_DEVICE and REVOKE_DEVICE (`clinic desk pair|revoke`,
 * on the server PC; no API operation, and `desk pair` is refused from a desk PC). The wiring: the
 * line `desk pair` prints and `desk join` over TLS in test/cli/desk-pc.test.ts, a joined PC's code
 * and a revoked PC refused by a running server in test/server/routes/desk.test.ts, each
 * command's row in test/cli/desk-roles.test.ts.
 */

/** The clinic's clock when the request is made; what a scenario starts with was done five minutes before. */
const NOW = '2026-11-30T08:00:00.000Z';
const BEFORE = '2026-11-30T07:55:00.000Z';
/** When a PC whose code has run out by NOW was paired. */
const LONG_BEFORE = '2026-11-30T07:50:00.000Z';
const TEN_MINUTES_LATER = '2026-11-30T08:10:00.000Z';
const ADDRESS = '10.0.0.2';
const PIN = '482913';

afterEach(() => mock.timers.reset());

function stopClockAt(iso: string): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
}

/** A desk PC as a scenario starts with it: paired and waiting, its code run out, joined, or joined and revoked. */
type DeskState = 'pending' | 'expired' | 'joined' | 'revoked';

/** The desk PCs a scenario starts with, by name: each one's id, its pairing code and, once joined, its token. */
interface Given {
  id: Record<string, string>;
  code: Record<string, string>;
  token: Record<string, string>;
}

/**
 * A clinic with its admin Anna and `desks` paired (and joined, revoked) in order, then Anna
 * logged in at each PC of `sessionsAt` (null: the server PC); the request comes at NOW.
 */
const clinicWith =
  (desks: Record<string, DeskState>, sessionsAt: (string | null)[] = []) =>
  (db: Db): Given => {
    stopClockAt(LONG_BEFORE);
    const anna = performUseCase(ADD_PERSON, db, { body: { name: 'Anna', roles: 'admin' } }, DESK_USER);
    const given: Given = { id: {}, code: {}, token: {} };
    for (const [name, state] of Object.entries(desks)) {
      stopClockAt(state === 'expired' ? LONG_BEFORE : BEFORE);
      const { device, code } = performUseCase(PAIR_DEVICE, db, { body: { name } }, DESK_USER);
      given.id[name] = device.id;
      given.code[name] = code;
      if (state === 'joined' || state === 'revoked')
        given.token[name] = joinDevice(db, {
          code,
          hostName: name.toLowerCase().replace(/ /g, '-'),
          address: ADDRESS,
          version: '1.3.0',
        }).device_token;
      if (state === 'revoked') performUseCase(REVOKE_DEVICE, db, { path: { device: name } }, DESK_USER);
    }
    sessionsAt.forEach((name, i) => {
      const device = name === null ? undefined : { id: given.id[name]!, name };
      const place =
        device === undefined
          ? { deviceActor: DESK_USER.actor!, source: 'server-pc' }
          : { deviceActor: deviceActor(device, ADDRESS), source: `${name} (${ADDRESS})`, device };
      const pin = i === 0 ? { pin: anna.setup_code, newPin: PIN } : { pin: PIN };
      logIn(db, { person: 'Anna', ...pin }, place);
    });
    stopClockAt(NOW);
    return given;
  };

/** A clinic before its first person: the clock at NOW and nothing else. */
const aClinicWithoutPeople = (): Given => {
  stopClockAt(NOW);
  return { id: {}, code: {}, token: {} };
};

const pairing = (values: Record<string, unknown>) => () => ({ body: values });
const revoking = (device: string) => () => ({ path: { device } });

/** Paired: the device and its code, and one device.pair of it; desk PCs are not in the change feed. */
const paired = (device: Record<string, unknown>, then?: (db: Db) => void): Outcome => ({
  result: { device, code: SHOWN_ONE_TIME_CODE },
  audit: ({ device: { id } }: PairedDevice) => [
    { action: 'device.pair', patient_id: null, subject_type: 'device', subject_id: id, detail: null },
  ],
  changes: [],
  ...(then === undefined ? {} : { then }),
});

/** Revoked: the device as shown, and one device.revoke of it. */
const revoked =
  (name: string, device: Record<string, unknown>, then?: (db: Db) => void) =>
  (given: Given): Outcome => ({
    result: { device: { id: given.id[name], name, state: 'revoked', revoked_at: NOW, ...device }, changed: true },
    audit: [{ action: 'device.revoke', patient_id: null, subject_type: 'device', subject_id: given.id[name], detail: null }],
    changes: [],
    ...(then === undefined ? {} : { then }),
  });

/** A person without admin asks: the desk PCs are row 19 of the role matrix, admin's alone. */
const notAnAdmin = (request: Scenario<Given>['request']): Scenario<Given> => ({
  title: "refuses a person without admin: the clinic's PCs are an admin's to manage (403 ROLE_FORBIDDEN)",
  given: clinicWith({ 'Reception 2': 'joined' }),
  request,
  caller: { ...DESK_USER, roles: ['reception'] },
  expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403, message: /needs the role admin; you have reception/ }),
});

const codeHashOf = (db: Db, name: string): unknown =>
  (db.prepare('SELECT code_hash FROM devices WHERE name = ?').get(name) as { code_hash: unknown }).code_hash;

/** A code that no longer joins: 401 PAIRING_CODE_INVALID, and nothing joined. */
const joinsNothing = (db: Db, code: string) =>
  assert.throws(() => joinDevice(db, { code, hostName: 'x', address: ADDRESS, version: null }), { code: 'PAIRING_CODE_INVALID' });

/** Each session, by the name of the PC it was made at (null: the server PC), and how it ended. */
const sessionsOf = (db: Db) =>
  db
    .prepare(
      'SELECT d.name AS pc, s.ended_at, s.end_reason FROM sessions s LEFT JOIN devices d ON d.id = s.device_id ORDER BY s.created_at, d.name',
    )
    .all();

const pairings: Scenario<Given>[] = [
  {
    title: 'pairs a PC under its name without the spaces around it: waiting, with a code valid 10 minutes, kept hashed',
    given: clinicWith({}),
    request: pairing({ name: ' Reception 2 ' }),
    expect: () =>
      paired(
        {
          name: 'Reception 2',
          state: 'pending',
          created_at: NOW,
          code_expires_at: TEN_MINUTES_LATER,
          ...NOT_JOINED_YET,
        },
        (db) => assert.match(String(codeHashOf(db, 'Reception 2')), /^[0-9a-f]{64}$/),
      ),
  },
  {
    title: 'names a PC given no name Desk N, the smallest N no PC of any state has',
    given: clinicWith({ 'Desk 1': 'revoked', 'Desk 2': 'joined', 'desk 4': 'pending' }),
    request: pairing({}),
    expect: () => paired({ name: 'Desk 3', state: 'pending' }),
  },
  {
    title: 'pairs a waiting PC again under its name in any case: the same device, a new code, the first void',
    given: clinicWith({ 'Room 1': 'pending' }),
    request: pairing({ name: 'ROOM 1' }),
    expect: (given) =>
      paired({ id: given.id['Room 1'], name: 'Room 1', state: 'pending', created_at: BEFORE, code_expires_at: TEN_MINUTES_LATER }, (db) =>
        joinsNothing(db, given.code['Room 1']!),
      ),
  },
  {
    title: 'pairs a PC whose code ran out again: waiting once more, with a new code',
    given: clinicWith({ 'Room 1': 'expired' }),
    request: pairing({ name: 'Room 1' }),
    expect: (given) => paired({ id: given.id['Room 1'], state: 'pending', created_at: LONG_BEFORE, code_expires_at: TEN_MINUTES_LATER }),
  },
  {
    title: "refuses a joined PC's name in any case, naming it: the trail names that PC by it (409 DEVICE_NAME_TAKEN)",
    given: clinicWith({ 'Reception 2': 'joined' }),
    request: pairing({ name: 'reception 2' }),
    expect: () => ({ refused: 'DEVICE_NAME_TAKEN', status: 409, message: /already named "Reception 2"/ }),
  },
  {
    title: "refuses a revoked PC's name: it is not paired anew under it (409 DEVICE_NAME_TAKEN)",
    given: clinicWith({ Laptop: 'revoked' }),
    request: pairing({ name: 'Laptop' }),
    expect: () => ({ refused: 'DEVICE_NAME_TAKEN', status: 409 }),
  },
  {
    title: 'refuses while the clinic has no people: a desk PC runs its commands as a person (409 STAFF_REQUIRED)',
    given: aClinicWithoutPeople,
    request: pairing({ name: 'Reception 2' }),
    expect: () => ({ refused: 'STAFF_REQUIRED', status: 409, message: /clinic staff add/ }),
  },
  {
    title: 'refuses a name of spaces alone as too short: names are stored trimmed',
    given: clinicWith({}),
    request: pairing({ name: '   ' }),
    expect: () => ({ invalid: ['body.name'], types: ['string_too_short'] }),
  },
  {
    title: 'refuses a name over 64 characters (string_too_long)',
    given: clinicWith({}),
    request: pairing({ name: 'x'.repeat(65) }),
    expect: () => ({ invalid: ['body.name'], types: ['string_too_long'] }),
  },
  notAnAdmin(pairing({ name: 'Room 1' })),
];

const revocations: Scenario<Given>[] = [
  {
    title: "revokes a joined PC at once, by name in any case: its sessions end and its token is refused; other PCs' stay",
    given: clinicWith({ 'Reception 2': 'joined', 'Room 1': 'joined' }, ['Reception 2', 'Room 1', null]),
    request: revoking('reception 2'),
    expect: (given) =>
      revoked('Reception 2', { joined_at: BEFORE, host_name: 'reception-2', code_expires_at: null }, (db) => {
        assert.deepEqual(sessionsOf(db), [
          { pc: null, ended_at: null, end_reason: null },
          { pc: 'Reception 2', ended_at: NOW, end_reason: 'device_revoked' },
          { pc: 'Room 1', ended_at: null, end_reason: null },
        ]);
        assert.throws(() => authenticateDevice(db, given.token['Reception 2']), { code: 'DEVICE_REVOKED' });
        assert.equal(authenticateDevice(db, given.token['Room 1']).name, 'Room 1');
      })(given),
  },
  {
    title: 'revokes a waiting PC: its code is void, and joins nothing',
    given: clinicWith({ 'Room 1': 'pending' }),
    request: revoking('Room 1'),
    expect: (given) =>
      revoked('Room 1', { joined_at: null, code_expires_at: null }, (db) => {
        assert.equal(codeHashOf(db, 'Room 1'), null);
        joinsNothing(db, given.code['Room 1']!);
      })(given),
  },
  {
    title: 'finds the PC by its id too, in any case',
    given: clinicWith({ 'Reception 2': 'joined' }),
    request: (given) => ({ path: { device: given.id['Reception 2']!.toUpperCase() } }),
    expect: revoked('Reception 2', {}),
  },
  {
    title: 'answers a revoked PC revoked again as unchanged, when it was first revoked, and records nothing',
    given: clinicWith({ Laptop: 'revoked' }),
    request: revoking('laptop'),
    expect: (given) => ({
      result: { device: { id: given.id.Laptop, state: 'revoked', revoked_at: BEFORE }, changed: false },
      audit: [],
      changes: [],
    }),
  },
  {
    title: 'refuses a name or id no PC has, naming it (404 DEVICE_NOT_FOUND)',
    given: clinicWith({ 'Reception 2': 'joined' }),
    request: revoking('Laptop'),
    expect: () => ({ refused: 'DEVICE_NOT_FOUND', status: 404, message: /"Laptop"/ }),
  },
  {
    title: 'refuses an empty reference (string_too_short)',
    given: clinicWith({ 'Reception 2': 'joined' }),
    request: revoking(''),
    expect: () => ({ invalid: ['path.device'], types: ['string_too_short'] }),
  },
  notAnAdmin(revoking('Reception 2')),
];

describeScenarios('PAIR_DEVICE', PAIR_DEVICE, pairings);
describeScenarios('REVOKE_DEVICE', REVOKE_DEVICE, revocations);

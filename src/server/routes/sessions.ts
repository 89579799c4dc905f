import { clinicTimeZone } from '../../domain/settings.js';
import { deviceActor } from '../../domain/people/devices.js';
import { logIn, logOut, presentSession } from '../../domain/people/sessions.js';
import { errors } from '../../errors.js';
import { LOGIN_INPUT_FIELDS } from '../../fields/session-fields.js';
import { fieldsValidator } from '../../domain/validation/validate.js';
import { ROLE_ROWS } from '../../domain/people/roles.js';
import { clientAddress, deskSource } from '../api/api-caller.js';
import type { Operation } from '../api/operation.js';

const login = fieldsValidator(LOGIN_INPUT_FIELDS, 'body');

const SESSION_EXAMPLE = {
  id: '0b6f4c1e-2d3a-4e5f-9a8b-7c6d5e4f3a2b',
  person_id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  person_name: 'Anna Berger',
  roles: ['reception'],
  device_id: '3c2b1a0f-9e8d-4c7b-a6f5-e4d3c2b1a0f9',
  device_name: 'Reception 2',
  created_at: '2026-11-30T07:58:12.104Z',
  last_used_at: '2026-11-30T08:14:40.512Z',
  idle_expires_at: '2026-11-30T08:44:40.512Z',
  expires_at: '2026-11-30T19:58:12.104Z',
};

/** What an operation on the request's own session refuses: a key, an ended session, a disabled person, another or a revoked PC. */
const OWN_SESSION_REFUSALS = [
  errors.sessionRequired(),
  errors.sessionEnded('idle'),
  errors.personDisabled(),
  errors.deviceUnknown(),
  errors.deviceRevoked('Reception 2'),
];

/**
 * A person's session at a desk PC (interface 1.3.0, "Sessions"): logging in through the PC's
 * device, looking at the session, logging out. What a login checks and records is the domain's
 * (sessions.ts), as for `clinic login` on the server PC.
 */
export const sessionOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/sessions',
    operationId: 'createSession',
    credentials: 'device',
    roles: ROLE_ROWS.ownSession,
    summary: 'Log a person in at a desk PC',
    description:
      "Needs the desk PC's `Clinic-Device`. 401 `LOGIN_FAILED` (`detail.reason` `unknown_person`, `wrong_pin` with `attempts_left`, " +
      '`wrong_code`), `PIN_NOT_SET`, `PERSON_DISABLED`; five wrong PINs in a row lock the person 15 minutes on every PC: 423 ' +
      '`PERSON_LOCKED` with `detail.locked_until` and Retry-After. With `new_pin`, `pin` may be the setup code and the new PIN ' +
      "is set first (422 `PIN_INVALID`). The PC's other open sessions end (`replaced`). Every 401 counts as a failed key.",
    tag: 'desk',
    body: { kind: 'json', model: 'LoginInput', example: { person: 'Anna Berger', pin: '583920' } },
    refusals: [
      errors.loginFailed('wrong_pin', 4),
      errors.pinNotSet(),
      errors.pinInvalid('sequence'),
      errors.personDisabled(),
      errors.personLocked('2026-11-30T09:15:00.000Z', 900_000, '10:15'),
      errors.deviceUnknown(),
      errors.deviceRevoked('Reception 2'),
    ],
    result: {
      kind: 'model',
      status: 201,
      model: 'NewSession',
      description: 'The person is logged in',
      example: { ...SESSION_EXAMPLE, token: 'cls_5Qm1…' },
    },
    handler:
      ({ db }) =>
      (ctx) => {
        const device = ctx.state.device!;
        const body = login.parse(ctx.state.body, { timeZone: clinicTimeZone(db) });
        const address = clientAddress(ctx);
        const { session, token } = logIn(
          db,
          { person: body.person, pin: body.pin, ...(body.new_pin === undefined ? {} : { newPin: body.new_pin }) },
          { deviceActor: deviceActor(device, address, ctx.state.requestId), source: deskSource(ctx, device), device },
        );
        return { ...session, token };
      },
  },
  {
    method: 'get',
    path: '/sessions/current',
    operationId: 'getCurrentSession',
    credentials: 'session',
    touchesSession: false,
    roles: ROLE_ROWS.ownSession,
    summary: 'The session of this request',
    description: 'Looking does not count as use: the idle end stays where it was.',
    tag: 'desk',
    refusals: OWN_SESSION_REFUSALS,
    result: { kind: 'model', status: 200, model: 'Session', description: 'The session', example: SESSION_EXAMPLE },
    handler: () => (ctx) => presentSession(ctx.state.session!),
  },
  {
    method: 'delete',
    path: '/sessions/current',
    operationId: 'endCurrentSession',
    credentials: 'session',
    roles: ROLE_ROWS.ownSession,
    summary: 'Log out: the session of this request ends',
    tag: 'desk',
    refusals: OWN_SESSION_REFUSALS,
    result: { kind: 'empty', description: 'Logged out' },
    handler:
      ({ db }) =>
      (ctx) => {
        const session = ctx.state.session!;
        const token = /^Bearer +(\S+)/i.exec(ctx.get('Authorization'))![1]!;
        logOut(db, token, deskSource(ctx, session.device));
        ctx.status = 204;
      },
  },
];

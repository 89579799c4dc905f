import assert from 'node:assert/strict';
import { afterEach, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { hashOneTimeCode } from '../../../src/domain/people/one-time-codes.js';
import {
  ADD_PERSON,
  DISABLE_PERSON,
  ENABLE_PERSON,
  findPerson,
  RESET_PERSON_PIN,
  SET_PERSON_ROLES,
  type PersonWithCode,
} from '../../../src/domain/people/persons.js';
import { logIn } from '../../../src/domain/people/sessions.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { SHOWN_ONE_TIME_CODE } from '../../helpers/one-time-codes.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * The clinic's people, rule by rule: ADD_PERSON, SET_PERSON_ROLES, DISABLE_PERSON, ENABLE_PERSON
 * and RESET_PERSON_PIN (`clinic staff add|set-roles|disable|enable|reset-pin`; no API operation,
 * a desk PC sends them through POST /desk/commands). The wiring: the desk's printouts, the first
 * person added without a login and the OS user's reset-pin in test/cli/commands/staff.test.ts,
 * each command's row in test/cli/desk-roles.test.ts, a disabled person refused by a running
 * server in test/server/routes/desk.test.ts.
 */

/** The clinic's clock during a scenario, stopped, so that a setup code's end is exact. */
const NOW = '2026-11-30T08:00:00.000Z';
const A_DAY_LATER = '2026-12-01T08:00:00.000Z';
const PIN = '482913';
const WRONG_PIN = '593021';
/** One anywhere in a text, with or without its dashes (not a piece of an id or a hash). */
const SETUP_CODE_IN_TEXT = /(?<![0-9A-Za-z-])[0-9A-HJKMNP-TV-Z]{4}-?[0-9A-HJKMNP-TV-Z]{4}-?[0-9A-HJKMNP-TV-Z]{4}(?![0-9A-Za-z-])/;

afterEach(() => mock.timers.reset());

/** One of the people a scenario starts with: their roles as the desk sends them, and what happened to them since. */
interface Member {
  roles: string;
  /** Their PIN set with the setup code, which logs them in at the server PC. */
  pin?: true;
  /** Wrong PINs typed after that: the fifth locks them for 15 minutes. */
  wrongPins?: number;
  disabled?: true;
}

/** The people a scenario starts with, by name: each one's id and the setup code they were given. */
interface Given {
  id: Record<string, string>;
  setupCode: Record<string, string>;
}

const AT_THE_SERVER_PC = { deviceActor: DESK_USER.actor!, source: 'reception-pc' };

/** A clinic at NOW with `members` added in order (so the first is an admin), then their PINs, wrong PINs and disabling. */
const clinicWith =
  (members: Record<string, Member>) =>
  (db: Db): Given => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(NOW) });
    const given: Given = { id: {}, setupCode: {} };
    for (const [name, { roles }] of Object.entries(members)) {
      const added = performUseCase(ADD_PERSON, db, { body: { name, roles } }, DESK_USER);
      given.id[name] = added.id;
      given.setupCode[name] = added.setup_code;
    }
    for (const [name, { pin, wrongPins = 0, disabled }] of Object.entries(members)) {
      if (pin) logIn(db, { person: name, pin: given.setupCode[name]!, newPin: PIN }, AT_THE_SERVER_PC);
      for (let i = 0; i < wrongPins; i++) assert.throws(() => logIn(db, { person: name, pin: WRONG_PIN }, AT_THE_SERVER_PC));
      if (disabled) performUseCase(DISABLE_PERSON, db, { path: { person: name } }, DESK_USER);
    }
    return given;
  };

const ANNA: Record<string, Member> = { Anna: { roles: 'admin' } };
const ANNA_AND_RITA: Record<string, Member> = { ...ANNA, Rita: { roles: 'reception' } };

const body = (values: Record<string, unknown>) => () => ({ body: values });
const onPerson = (person: string, values?: Record<string, unknown>) => () => ({
  path: { person },
  ...(values === undefined ? {} : { body: values }),
});

/** Added: the person as shown with their setup code, and one person.create of them; people are not in the change feed. */
const created = (result: Record<string, unknown>, then?: (db: Db) => void): Outcome => ({
  result,
  audit: (person: PersonWithCode) => [
    { action: 'person.create', patient_id: null, subject_type: 'person', subject_id: person.id, detail: null },
  ],
  changes: [],
  ...(then === undefined ? {} : { then }),
});

/** Changed: the person as shown, and one person.update naming what changed. */
const updated =
  (name: string, changed: 'enabled' | 'roles' | 'pin', result: Record<string, unknown>, then?: (db: Db) => void) =>
  (given: Given): Outcome => ({
    result,
    audit: [
      { action: 'person.update', patient_id: null, subject_type: 'person', subject_id: given.id[name], detail: { changed: [changed] } },
    ],
    changes: [],
    ...(then === undefined ? {} : { then }),
  });

/** Enabled or disabled again as it was: shown as unchanged, and nothing recorded. */
const unchanged = (person: Record<string, unknown>): Outcome => ({ result: { person, changed: false }, audit: [], changes: [] });

/** A person without admin asks: the people are row 19 of the role matrix, admin's alone. */
const notAnAdmin = (request: Scenario<Given>['request']): Scenario<Given> => ({
  title: "refuses a person without admin: the clinic's people are an admin's to manage (403 ROLE_FORBIDDEN)",
  given: clinicWith(ANNA_AND_RITA),
  request,
  caller: { ...DESK_USER, roles: ['reception', 'billing'] },
  expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403, message: /needs the role admin; you have reception, billing/ }),
});

const unknownPerson = (request: Scenario<Given>['request']): Scenario<Given> => ({
  title: 'refuses a name or id no person has, naming it (404 PERSON_NOT_FOUND)',
  given: clinicWith(ANNA_AND_RITA),
  request,
  expect: () => ({ refused: 'PERSON_NOT_FOUND', status: 404, message: /"Nobody"/ }),
});

/** The setup code is shown once and kept only as its SHA-256: neither the person's row nor the trail holds it. */
const keepsOnlyTheCodesHash = (name: string) => (db: Db) => {
  assert.match(String(findPerson(db, name)!.setup_code_hash), /^[0-9a-f]{64}$/);
  for (const { detail } of db.prepare('SELECT detail FROM audit_events').all() as { detail: string | null }[])
    assert.doesNotMatch(detail ?? '', SETUP_CODE_IN_TEXT);
};

/** What wrong PINs left on a person: their count and the lock's end. */
const wrongPinsOf = (db: Db, name: string) => {
  const { failed_pins, locked_until } = findPerson(db, name)!;
  return [failed_pins, locked_until];
};

const adding: Scenario<Given>[] = [
  {
    title: 'adds the first person, an admin, with no PIN yet and a setup code valid 24 hours',
    given: clinicWith({}),
    request: body({ name: 'Anna', roles: 'admin' }),
    expect: () =>
      created(
        {
          name: 'Anna',
          roles: ['admin'],
          enabled: true,
          pin_set: false,
          locked_until: null,
          last_login_at: null,
          created_at: NOW,
          setup_code: SHOWN_ONE_TIME_CODE,
          setup_code_expires_at: A_DAY_LATER,
        },
        keepsOnlyTheCodesHash('Anna'),
      ),
  },
  {
    title: 'refuses a first person who is no admin: someone must be able to add the others (422 FIRST_PERSON_ADMIN)',
    given: clinicWith({}),
    request: body({ name: 'Rita', roles: 'reception,billing' }),
    expect: () => ({ refused: 'FIRST_PERSON_ADMIN', status: 422 }),
  },
  {
    title: 'adds later people with any roles, given in their order, each once, however typed',
    given: clinicWith(ANNA),
    request: body({ name: 'Rita', roles: ' scheduler,reception , scheduler,billing' }),
    expect: () => created({ name: 'Rita', roles: ['reception', 'billing', 'scheduler'], enabled: true, pin_set: false }),
  },
  {
    title: 'stores the name without the spaces around it',
    given: clinicWith(ANNA),
    request: body({ name: '  Rita Huber ', roles: 'reception' }),
    expect: () => created({ name: 'Rita Huber' }),
  },
  {
    title: 'refuses a name taken, compared in any case without the spaces around it (409 PERSON_NAME_TAKEN)',
    given: clinicWith(ANNA),
    request: body({ name: ' ANNA ', roles: 'billing' }),
    expect: () => ({ refused: 'PERSON_NAME_TAKEN', status: 409, message: /already named "ANNA"/ }),
  },
  {
    title: "refuses a disabled person's name: a person is never deleted, only disabled",
    given: clinicWith({ ...ANNA, Rita: { roles: 'reception', disabled: true } }),
    request: body({ name: 'rita', roles: 'reception' }),
    expect: () => ({ refused: 'PERSON_NAME_TAKEN', status: 409 }),
  },
  {
    title: 'takes a name that differs by an accent: names are compared in case only',
    given: clinicWith({ ...ANNA, Zoe: { roles: 'reception' } }),
    request: body({ name: 'Zoë', roles: 'reception' }),
    expect: () => created({ name: 'Zoë' }),
  },
  {
    title: 'refuses a request without name and roles, naming both',
    given: clinicWith(ANNA),
    request: body({}),
    expect: () => ({ invalid: ['body.name', 'body.roles'], types: ['missing', 'missing'] }),
  },
  {
    title: 'refuses a name of spaces alone as too short, and a role it does not know at its place, at once',
    given: clinicWith(ANNA),
    request: body({ name: '   ', roles: 'reception,doctor' }),
    expect: () => ({ invalid: ['body.name', 'body.roles.1'], types: ['string_too_short', 'literal_error'] }),
  },
  {
    title: 'refuses a name over 100 characters (string_too_long)',
    given: clinicWith(ANNA),
    request: body({ name: 'x'.repeat(101), roles: 'reception' }),
    expect: () => ({ invalid: ['body.name'], types: ['string_too_long'] }),
  },
  {
    title: 'refuses roles of commas alone: a person needs at least one (value_error)',
    given: clinicWith(ANNA),
    request: body({ name: 'Rita', roles: ' , ' }),
    expect: () => ({ invalid: ['body.roles'], types: ['value_error'] }),
  },
  notAnAdmin(body({ name: 'Bea', roles: 'billing' })),
];

const settingRoles: Scenario<Given>[] = [
  {
    title: "replaces a person's roles, found by name in any case, in their order, recording roles changed",
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson('RITA', { roles: 'scheduler, billing' }),
    expect: updated('Rita', 'roles', { name: 'Rita', roles: ['billing', 'scheduler'] }),
  },
  {
    title: 'finds the person by id too, in any case',
    given: clinicWith(ANNA_AND_RITA),
    request: (given) => ({ path: { person: given.id.Rita!.toUpperCase() }, body: { roles: 'billing' } }),
    expect: updated('Rita', 'roles', { name: 'Rita', roles: ['billing'] }),
  },
  {
    title: 'takes admin from an admin while another enabled admin stays',
    given: clinicWith({ ...ANNA, Bea: { roles: 'admin' } }),
    request: onPerson('Bea', { roles: 'billing' }),
    expect: updated('Bea', 'roles', { roles: ['billing'] }),
  },
  {
    title: 'refuses to take admin from the last enabled admin, naming them (409 LAST_ADMIN)',
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson('anna', { roles: 'reception' }),
    expect: () => ({ refused: 'LAST_ADMIN', status: 409, message: /^Anna is the last enabled admin/ }),
  },
  {
    title: 'counts enabled admins only: a disabled one manages no one',
    given: clinicWith({ ...ANNA, Bea: { roles: 'admin', disabled: true } }),
    request: onPerson('Anna', { roles: 'reception' }),
    expect: () => ({ refused: 'LAST_ADMIN', status: 409 }),
  },
  {
    title: 'takes admin from a disabled admin',
    given: clinicWith({ ...ANNA, Bea: { roles: 'admin', disabled: true } }),
    request: onPerson('Bea', { roles: 'billing' }),
    expect: updated('Bea', 'roles', { roles: ['billing'], enabled: false }),
  },
  {
    title: 'gives the last admin more roles, admin kept',
    given: clinicWith(ANNA),
    request: onPerson('Anna', { roles: 'billing,admin' }),
    expect: updated('Anna', 'roles', { roles: ['admin', 'billing'] }),
  },
  {
    title: 'records roles set again as they were as roles changed all the same',
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson('Rita', { roles: 'reception' }),
    expect: updated('Rita', 'roles', { roles: ['reception'] }),
  },
  unknownPerson(onPerson('Nobody', { roles: 'billing' })),
  {
    title: 'refuses a role it does not know at its place in the list (literal_error)',
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson('Rita', { roles: 'reception,doctor' }),
    expect: () => ({ invalid: ['body.roles.1'], types: ['literal_error'] }),
  },
  {
    title: 'refuses an empty reference and no roles, naming both',
    given: clinicWith(ANNA_AND_RITA),
    request: () => ({ path: { person: '' }, body: {} }),
    expect: () => ({ invalid: ['path.person', 'body.roles'], types: ['string_too_short', 'missing'] }),
  },
  notAnAdmin(onPerson('Rita', { roles: 'billing' })),
];

const disabling: Scenario<Given>[] = [
  {
    title: 'disables a person, found by name in any case with spaces around it, recording enabled changed',
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson(' rita '),
    expect: updated('Rita', 'enabled', { person: { name: 'Rita', roles: ['reception'], enabled: false }, changed: true }),
  },
  {
    title: 'disables an admin while another enabled admin stays',
    given: clinicWith({ ...ANNA, Bea: { roles: 'admin' } }),
    request: onPerson('Anna'),
    expect: updated('Anna', 'enabled', { person: { name: 'Anna', enabled: false }, changed: true }),
  },
  {
    title: 'refuses to disable the last enabled admin, naming them (409 LAST_ADMIN)',
    given: clinicWith({ ...ANNA, Rita: { roles: 'reception' }, Bea: { roles: 'admin,billing', disabled: true } }),
    request: onPerson('Anna'),
    expect: () => ({ refused: 'LAST_ADMIN', status: 409, message: /^Anna is the last enabled admin/ }),
  },
  {
    title: 'answers a disabled person disabled again as unchanged, and records nothing',
    given: clinicWith({ ...ANNA, Rita: { roles: 'reception', disabled: true } }),
    request: onPerson('Rita'),
    expect: () => unchanged({ name: 'Rita', enabled: false }),
  },
  unknownPerson(onPerson('Nobody')),
  {
    title: 'refuses an empty reference (string_too_short)',
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson(''),
    expect: () => ({ invalid: ['path.person'], types: ['string_too_short'] }),
  },
  notAnAdmin(onPerson('Rita')),
];

const enabling: Scenario<Given>[] = [
  {
    title: 'enables a disabled person, recording enabled changed',
    given: clinicWith({ ...ANNA, Rita: { roles: 'reception', disabled: true } }),
    request: onPerson('rita'),
    expect: updated('Rita', 'enabled', { person: { name: 'Rita', enabled: true }, changed: true }),
  },
  {
    title: 'unlocks a person locked after five wrong PINs, recorded as enabled changed: they may log in again',
    given: clinicWith({ ...ANNA, Rita: { roles: 'reception', pin: true, wrongPins: 5 } }),
    request: onPerson('Rita'),
    expect: updated('Rita', 'enabled', { person: { enabled: true, locked_until: null }, changed: true }, (db) =>
      assert.deepEqual(wrongPinsOf(db, 'Rita'), [0, null]),
    ),
  },
  {
    title: 'ends a count of wrong PINs short of a lock, as a change: the next five may be wrong again',
    given: clinicWith({ ...ANNA, Rita: { roles: 'reception', pin: true, wrongPins: 2 } }),
    request: onPerson('Rita'),
    expect: updated('Rita', 'enabled', { person: { enabled: true, locked_until: null }, changed: true }, (db) =>
      assert.deepEqual(wrongPinsOf(db, 'Rita'), [0, null]),
    ),
  },
  {
    title: 'answers an enabled person with no wrong PINs as unchanged, and records nothing',
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson('Rita'),
    expect: () => unchanged({ name: 'Rita', enabled: true, locked_until: null }),
  },
  unknownPerson(onPerson('Nobody')),
  notAnAdmin(onPerson('Rita')),
];

/** Each session, by its person's name, and whether and why it ended. */
const sessionsOf = (db: Db) =>
  db.prepare('SELECT p.name, s.ended_at, s.end_reason FROM sessions s JOIN persons p ON p.id = s.person_id ORDER BY p.name').all() as {
    name: string;
    ended_at: string | null;
    end_reason: string | null;
  }[];

const resettingPins: Scenario<Given>[] = [
  {
    title: "voids the PIN, ends the person's sessions (pin_reset) and gives a new setup code valid 24 hours, kept hashed",
    given: clinicWith({ Anna: { roles: 'admin', pin: true }, Rita: { roles: 'reception', pin: true } }),
    request: onPerson('Rita'),
    expect: updated(
      'Rita',
      'pin',
      { name: 'Rita', pin_set: false, locked_until: null, setup_code: SHOWN_ONE_TIME_CODE, setup_code_expires_at: A_DAY_LATER },
      (db) => {
        assert.deepEqual(sessionsOf(db), [
          { name: 'Anna', ended_at: null, end_reason: null },
          { name: 'Rita', ended_at: NOW, end_reason: 'pin_reset' },
        ]);
        keepsOnlyTheCodesHash('Rita')(db);
      },
    ),
  },
  {
    title: 'unlocks a locked person: the wrong PINs were of the PIN now void',
    given: clinicWith({ ...ANNA, Rita: { roles: 'reception', pin: true, wrongPins: 5 } }),
    request: onPerson('Rita'),
    expect: updated('Rita', 'pin', { pin_set: false, locked_until: null }, (db) => assert.deepEqual(wrongPinsOf(db, 'Rita'), [0, null])),
  },
  {
    title: 'gives a person who never set a PIN a new setup code, the first no longer valid',
    given: clinicWith(ANNA_AND_RITA),
    request: onPerson('Rita'),
    expect: (given) =>
      updated('Rita', 'pin', { pin_set: false, setup_code: SHOWN_ONE_TIME_CODE }, (db) =>
        assert.notEqual(findPerson(db, 'Rita')!.setup_code_hash, hashOneTimeCode(given.setupCode.Rita!)),
      )(given),
  },
  unknownPerson(onPerson('Nobody')),
  notAnAdmin(onPerson('Rita')),
];

describeScenarios('ADD_PERSON', ADD_PERSON, adding);
describeScenarios('SET_PERSON_ROLES', SET_PERSON_ROLES, settingRoles);
describeScenarios('DISABLE_PERSON', DISABLE_PERSON, disabling);
describeScenarios('ENABLE_PERSON', ENABLE_PERSON, enabling);
describeScenarios('RESET_PERSON_PIN', RESET_PERSON_PIN, resettingPins);

import assert from 'node:assert/strict';
import { mock } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import {
  authenticate,
  createApiKey,
  CREATE_API_KEY,
  MOST_REQUESTS_PER_MINUTE,
  REVOKE_API_KEY,
  revokeApiKey,
  SCOPES,
} from '../../src/domain/api-keys.js';
import { refusesNonAdmin } from '../helpers/admin-only.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../helpers/use-case-scenarios.js';

/**
 * CREATE_API_KEY and REVOKE_API_KEY (`clinic api-key create|revoke`; no HTTP route: keys are
 * issued at the desk), rule by rule. The desk's printouts and `revoke NAME`:
 * test/cli/commands.test.ts and test/cli/admin-commands.test.ts; a key's scopes, limit and
 * revocation on a running server: test/server/middleware/authorize.test.ts,
 * test/server/read-scopes.test.ts, test/server/throttles/key-rate-limits.test.ts.
 */

/** The key "reception" and another, "booking-screen", issued first; the request names the first. */
interface Given {
  keyId: string;
  key: string;
  otherKey: string;
}

const someKeys =
  (before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    const reception = createApiKey(db, { name: 'reception' });
    const given = { keyId: reception.id, key: reception.key, otherKey: createApiKey(db, { name: 'booking-screen' }).key };
    before(db, given);
    return given;
  };

const body = (values: Record<string, unknown>) => () => ({ body: values });
const thatKey = (given: Given) => ({ path: { id: given.keyId } });

/** A key as made: 256 random bits after the prefix. */
const A_KEY = /^clinic_[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every value of every table, as one text. */
function everythingStored(db: Db): string {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  return JSON.stringify(tables.map(({ name }) => db.prepare(`SELECT * FROM "${name}"`).all()));
}

/** The scopes column of the key named `name` issued last: `*` for every scope, else those it holds. */
const storedScopes = (db: Db, name: string) =>
  (db.prepare('SELECT scopes FROM api_keys WHERE name = ? ORDER BY rowid DESC').get(name) as { scopes: string }).scopes;

/**
 * Issued: the result's fields, one key.create naming the key, nothing in the feed; its scopes
 * stored as `scopesColumn`, and the key itself in no table (only its hash is kept).
 */
const issued = (result: Record<string, unknown>, scopesColumn: string) => (): Outcome => ({
  result: { key: A_KEY, created_at: ISO, ...result },
  audit: (created: { id: string }) => [
    { action: 'key.create', patient_id: null, subject_type: 'key', subject_id: created.id, detail: null },
  ],
  changes: [],
  then: (db) => {
    assert.equal(storedScopes(db, result.name as string), scopesColumn);
    assert.doesNotMatch(everythingStored(db), /clinic_[A-Za-z0-9_-]{43}/, 'no key is stored, only its hash');
  },
});

const creating: Scenario<Given>[] = [
  {
    title: 'issues a key of every scope, also those later versions add, and no limit of its own: the shape of decisions.md §8',
    given: someKeys(),
    request: body({ name: 'accounting export' }),
    expect: issued({ name: 'accounting export', scopes: [...SCOPES], rate_limit_per_minute: undefined }, '*'),
  },
  {
    title: 'issues a key of the scopes named, each once, in the order of the scopes, spaces around them ignored',
    given: someKeys(),
    request: body({ name: 'phone system', scopes: ' lookups:read, patients:read ,lookups:read' }),
    expect: issued({ name: 'phone system', scopes: ['patients:read', 'lookups:read'] }, 'patients:read lookups:read'),
  },
  {
    title: 'keeps exactly the scopes named when they are all of them today: such a key gains none later (clinic-api-1.1.md)',
    given: someKeys(),
    request: body({ name: 'integration', scopes: SCOPES.join(',') }),
    expect: issued({ name: 'integration', scopes: [...SCOPES] }, SCOPES.join(' ')),
  },
  ...[1, 60, MOST_REQUESTS_PER_MINUTE].map((limit): Scenario<Given> => ({
    title: `issues a key limited to ${limit} per minute, and says so`,
    given: someKeys(),
    request: body({ name: 'booking page', rate_limit_per_minute: limit }),
    expect: issued({ name: 'booking page', rate_limit_per_minute: limit }, '*'),
  })),
  {
    title: 'takes a null limit as none',
    given: someKeys(),
    request: body({ name: 'booking page', rate_limit_per_minute: null }),
    expect: issued({ name: 'booking page', rate_limit_per_minute: undefined }, '*'),
  },
  {
    title: 'issues a second key of a name in use: names are not unique',
    given: someKeys(),
    request: body({ name: 'reception' }),
    expect: issued({ name: 'reception' }, '*'),
  },
  {
    title: 'issues a key for a person who is an admin',
    given: someKeys(),
    request: body({ name: 'lab link' }),
    caller: { ...DESK_USER, roles: ['admin'] },
    expect: issued({ name: 'lab link' }, '*'),
  },
  ...(
    [
      [{}, 'missing'],
      [{ name: '' }, 'string_too_short'],
      [{ name: 'x'.repeat(129) }, 'string_too_long'],
      [{ name: 3 }, 'string_type'],
    ] as const
  ).map(([values, type]): Scenario<Given> => ({
    title: `refuses ${JSON.stringify(values).slice(0, 30)} as a name: ${type}`,
    given: someKeys(),
    request: body(values),
    expect: () => ({ invalid: ['body.name'], types: [type] }),
  })),
  {
    title: 'refuses a scope it does not know, at its place in the list (literal_error)',
    given: someKeys(),
    request: body({ name: 'x', scopes: 'patients:read,root,Patients:Write' }),
    expect: () => ({ invalid: ['body.scopes.1', 'body.scopes.2'], types: ['literal_error', 'literal_error'] }),
  },
  ...['', ' , '].map((scopes): Scenario<Given> => ({
    title: `refuses ${JSON.stringify(scopes)} as scopes: a key needs at least one, and leaving them out means all`,
    given: someKeys(),
    request: body({ name: 'x', scopes }),
    expect: () => ({ invalid: ['body.scopes'], types: ['value_error'], ctx: [{ error: /at least one scope/ }] }),
  })),
  ...(
    [
      [0, 'greater_than_equal'],
      [MOST_REQUESTS_PER_MINUTE + 1, 'less_than_equal'],
      [1.5, 'int_type'],
      ['60', 'int_type'],
    ] as const
  ).map(([limit, type]): Scenario<Given> => ({
    title: `refuses ${JSON.stringify(limit)} requests a minute: ${type}`,
    given: someKeys(),
    request: body({ name: 'x', rate_limit_per_minute: limit }),
    expect: () => ({ invalid: ['body.rate_limit_per_minute'], types: [type] }),
  })),
  {
    title: 'refuses a person who is not an admin, whatever else they are (403 ROLE_FORBIDDEN)',
    given: someKeys(),
    request: body({ name: 'x' }),
    caller: { ...DESK_USER, roles: ['reception', 'billing', 'scheduler', 'practitioner'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403, message: /needs the role admin/ }),
  },
];

/** When the key of a "revoking twice" scenario was revoked first. */
const FIRST_REVOKED_AT = '2026-11-30T08:00:00.000Z';

/** Revoked: the key's fields, never its secret, and one key.revoke naming it. */
const revoked =
  (result: Record<string, unknown>) =>
  (given: Given): Outcome => ({
    result: { id: given.keyId, name: 'reception', key: undefined, key_hash: undefined, ...result },
    audit: [{ action: 'key.revoke', patient_id: null, subject_type: 'key', subject_id: given.keyId, detail: null }],
    changes: [],
    then: (db) => {
      assert.throws(() => authenticate(db, `Bearer ${given.key}`), { code: 'UNAUTHENTICATED' });
      assert.equal(authenticate(db, `Bearer ${given.otherKey}`).keyName, 'booking-screen', 'the other key still works');
    },
  });

const revoking: Scenario<Given>[] = [
  {
    title: 'revokes the key at once: it authenticates no more, and the other keys still do',
    given: someKeys(),
    request: thatKey,
    expect: revoked({ scopes: [...SCOPES], revoked_at: ISO, rate_limit_per_minute: null }),
  },
  {
    title: 'revokes a key named by its id in capitals: ids are read in any case',
    given: someKeys(),
    request: (given) => ({ path: { id: given.keyId.toUpperCase() } }),
    expect: revoked({ revoked_at: ISO }),
  },
  {
    title: 'keeps the first time of a key revoked twice, and records the second revoke too',
    given: someKeys((db, given) => {
      mock.timers.enable({ apis: ['Date'], now: Date.parse(FIRST_REVOKED_AT) });
      try {
        revokeApiKey(db, given.keyId);
      } finally {
        mock.timers.reset();
      }
    }),
    request: thatKey,
    expect: revoked({ revoked_at: FIRST_REVOKED_AT }),
  },
  {
    title: 'refuses an id no key has (404 API_KEY_NOT_FOUND)',
    given: someKeys(),
    request: () => ({ path: { id: '00000000-0000-4000-8000-000000000000' } }),
    expect: () => ({ refused: 'API_KEY_NOT_FOUND', status: 404 }),
  },
  {
    title: 'refuses what is no id (uuid_parsing): a name is for the desk to resolve',
    given: someKeys(),
    request: () => ({ path: { id: 'reception' } }),
    expect: () => ({ invalid: ['path.id'], types: ['uuid_parsing'] }),
  },
  refusesNonAdmin(someKeys(), thatKey),
];

describeScenarios('issuing an API key (CREATE_API_KEY)', CREATE_API_KEY, creating);
describeScenarios('revoking an API key (REVOKE_API_KEY)', REVOKE_API_KEY, revoking);

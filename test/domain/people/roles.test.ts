// Who may do what: the five roles and the rows of the role matrix (clinic-api-1.3.md, "Roles").
import assert from 'node:assert/strict';
import { thrownBy } from '../../helpers/thrown.js';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.js';
import {
  balanceFor,
  orderedRoles,
  requireRoles,
  ROLE_ROWS,
  ROLES,
  rolesAllow,
  seesMoney,
  type Role,
} from '../../../src/domain/people/roles.js';

/** The specification's letters for the roles. */
const LETTER: Readonly<Record<string, Role>> = { a: 'admin', r: 'reception', p: 'practitioner', b: 'billing', s: 'scheduler' };

/** The matrix's "roles" column, copied from clinic-api-1.3.md, by the row that names it. */
const MATRIX: Readonly<Record<keyof typeof ROLE_ROWS, string>> = {
  noLogin: '', // rows 1 and 2: no login
  ownSession: 'a r p b s', // 3
  lookups: 'a r p b s', // 5
  readPatients: 'a r p b s', // 6
  createPatients: 'a r p s', // 7
  editPatients: 'a r p b s', // 8
  readAppointments: 'a r p b s', // 9
  writeAppointments: 'a r p s', // 10
  readReminders: 'a r p s', // 11
  listDocuments: 'a r p b', // 12
  documents: 'a r p', // 13
  readInvoices: 'a r p b', // 14
  takeMoney: 'a r b', // 15
  giveMoneyBack: 'a b', // 16
  exportPatients: 'a', // 17
  audit: 'a', // 18
  administer: 'a', // 19
};

const rolesOf = (letters: string): Role[] => letters.split(' ').flatMap((letter) => (letter === '' ? [] : [LETTER[letter]!]));

describe('roles', () => {
  it('are the five of the specification, in its order', () => {
    assert.deepEqual(ROLES, ['admin', 'reception', 'practitioner', 'billing', 'scheduler']);
  });

  it("give each row of the matrix exactly the specification's roles", () => {
    assert.deepEqual(Object.keys(ROLE_ROWS).sort(), Object.keys(MATRIX).sort());
    for (const [row, letters] of Object.entries(MATRIX)) assert.deepEqual(ROLE_ROWS[row as keyof typeof ROLE_ROWS], rolesOf(letters), row);
  });

  it('let a person do what any of their roles may: reception takes money, but only billing or admin give it back', () => {
    assert.equal(rolesAllow(ROLE_ROWS.takeMoney, ['reception']), true);
    assert.equal(rolesAllow(ROLE_ROWS.giveMoneyBack, ['reception']), false);
    assert.equal(rolesAllow(ROLE_ROWS.giveMoneyBack, ['reception', 'billing']), true);
    assert.equal(rolesAllow(ROLE_ROWS.administer, ['reception', 'practitioner', 'billing', 'scheduler']), false);
    assert.equal(rolesAllow(ROLE_ROWS.takeMoney, []), false);
    // Rows 1 and 2 need no login: no roles at all will do.
    assert.equal(rolesAllow(ROLE_ROWS.noLogin, []), true);
  });

  it('refuse with 403 ROLE_FORBIDDEN naming the roles allowed and the roles held', () => {
    assert.doesNotThrow(() => requireRoles(ROLE_ROWS.documents, ['practitioner']));
    const refusal = thrownBy(() => requireRoles(ROLE_ROWS.documents, ['billing', 'scheduler']));
    assert.ok(refusal instanceof AppError, `refused with an AppError, not ${String(refusal)}`);
    assert.deepEqual(
      [refusal.status, refusal.code, refusal.details],
      [403, 'ROLE_FORBIDDEN', { allowed_roles: ['admin', 'reception', 'practitioner'], roles: ['billing', 'scheduler'] }],
    );
  });

  it('list the roles given, each once, in the order of the specification', () => {
    assert.deepEqual(orderedRoles(['scheduler', 'admin', 'billing', 'admin']), ['admin', 'billing', 'scheduler']);
    assert.deepEqual(orderedRoles(['nurse']), []);
    assert.deepEqual(orderedRoles([]), []);
  });

  it('hide money from a scheduler alone, and from nobody else', () => {
    assert.equal(seesMoney(['scheduler']), false);
    assert.equal(seesMoney([]), false);
    for (const role of ['admin', 'reception', 'practitioner', 'billing'] as const) assert.equal(seesMoney(['scheduler', role]), true, role);
    // A key or the OS user has no roles: it sees money.
    assert.equal(seesMoney(undefined), true);
  });

  it("null a patient's balance for a scheduler, keep it for others", () => {
    const shown = {
      id: 'p',
      outstanding_balance: '120.50',
      outstanding_currency: 'EUR',
      outstanding_balances: [{ currency: 'EUR', amount: '120.50' }],
    };
    assert.deepEqual(balanceFor(shown, ['scheduler']), {
      id: 'p',
      outstanding_balance: null,
      outstanding_currency: null,
      outstanding_balances: [],
    });
    assert.equal(balanceFor(shown, ['reception']), shown);
    assert.equal(balanceFor(shown, undefined), shown);
    // A summary without a list of balances gains none.
    assert.deepEqual(balanceFor({ outstanding_balance: '0', outstanding_currency: null }, ['scheduler']), {
      outstanding_balance: null,
      outstanding_currency: null,
    });
  });
});

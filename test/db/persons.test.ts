// The clinic's people (clinic-api-1.3.md, "Persons"): whether the desk needs a login yet, how a
// person is found by name in any case, what a change may write, and who counts as the last admin.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  anyPersonExists,
  countEnabledAdmins,
  findPersonById,
  findPersonByNameKey,
  insertPerson,
  listPersonRows,
  updatePersonRow,
  type PersonRow,
} from '../../src/db/persons.js';
import { buildPersonRow } from '../helpers/builders.js';
import { assertSchemaRefuses, assertUpdateKeepsIdentity } from '../helpers/db-rows.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** An enabled person of `roles` (space-separated) without a PIN yet, added at 08:00. */
const newPerson = (name: string, roles: string, enabled: 0 | 1 = 1): PersonRow =>
  buildPersonRow(name, { roles, enabled, setup_code_hash: 'setup-code-hash', setup_code_expires_at: '2026-12-01T08:00:00.000Z' });

describe('persons (db)', () => {
  const data = useTestDatabase({ each: true });

  it('knows whether anyone exists: from the first person on, the desk needs a login', () => {
    assert.equal(anyPersonExists(data.db), false);
    insertPerson(data.db, newPerson('Anna', 'admin'));
    assert.equal(anyPersonExists(data.db), true);
  });

  it('lists persons in the order added and finds one by id or by the name lower-cased, which is unique in any case', () => {
    const anna = newPerson('Anna', 'admin');
    const bernd = newPerson('Bernd', 'reception');
    insertPerson(data.db, anna);
    insertPerson(data.db, bernd);
    assert.deepEqual(
      listPersonRows(data.db).map((row) => row.name),
      ['Anna', 'Bernd'],
    );
    assert.equal(findPersonById(data.db, bernd.id)?.name, 'Bernd');
    assert.equal(findPersonByNameKey(data.db, 'anna')?.id, anna.id);
    assert.equal(findPersonById(data.db, randomUUID()), undefined);
    assertSchemaRefuses(() => insertPerson(data.db, newPerson('ANNA', 'billing')), 'SQLITE_CONSTRAINT_UNIQUE');
    assert.equal(listPersonRows(data.db).length, 2);
  });

  it('writes roles, state, PIN, code, failures, lock and last login, and never the name or when the person was added', () => {
    const anna = newPerson('Anna', 'admin');
    insertPerson(data.db, anna);
    const changed: PersonRow = {
      ...anna,
      roles: 'admin billing',
      enabled: 0,
      pin_hash: 'scrypt-hash',
      setup_code_hash: null,
      setup_code_expires_at: null,
      failed_pins: 5,
      locked_until: '2026-11-30T08:18:00.000Z',
      last_login_at: '2026-11-30T08:00:00.000Z',
    };
    assertUpdateKeepsIdentity(
      changed,
      (row) => updatePersonRow(data.db, row),
      () => findPersonById(data.db, anna.id),
      { name: 'Anna', name_key: 'anna', created_at: '2026-11-30T08:00:00.000Z' },
    );
  });

  it('counts the enabled persons who hold admin among their roles, wherever it stands in them', () => {
    assert.equal(countEnabledAdmins(data.db), 0);
    insertPerson(data.db, newPerson('Anna', 'admin'));
    insertPerson(data.db, newPerson('Bernd', 'admin reception billing'));
    insertPerson(data.db, newPerson('Clara', 'reception practitioner'));
    const dora = newPerson('Dora', 'admin', 0);
    insertPerson(data.db, dora);
    assert.equal(countEnabledAdmins(data.db), 2);
    updatePersonRow(data.db, { ...dora, enabled: 1 });
    assert.equal(countEnabledAdmins(data.db), 3);
  });

  it('refuses a person without a role, or with failures below zero', () => {
    for (const broken of [{ roles: '' }, { failed_pins: -1 }]) {
      assertSchemaRefuses(
        () => insertPerson(data.db, { ...newPerson('Erich', 'reception'), ...broken }),
        'SQLITE_CONSTRAINT_CHECK',
        JSON.stringify(broken),
      );
    }
    assert.equal(anyPersonExists(data.db), false);
  });
});

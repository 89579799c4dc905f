// The sessions table's statements (interface 1.3.0, "Sessions"): how a login's session is found, used and ended.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { insertPerson } from '../../src/db/persons.js';
import {
  endSessionRow,
  endSessionsOfDevice,
  endSessionsOfPerson,
  findSessionByTokenHash,
  forgetAllSessions,
  insertSession,
  openSessionsOfDevice,
  touchSession,
  type SessionRow,
} from '../../src/db/sessions.js';
import { buildPersonRow } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';

const LOGIN = '2026-11-30T08:00:00.000Z';
const LATER = '2026-11-30T09:00:00.000Z';
const EVEN_LATER = '2026-11-30T10:00:00.000Z';

/** A person's row, stored directly: a session must name one (sessions.person_id). Returns its id. */
function storePerson(db: Db, name: string): string {
  const row = buildPersonRow(name, { created_at: LOGIN });
  insertPerson(db, row);
  return row.id;
}

/** An open session of `personId` made at LOGIN through `deviceId` (null: the server PC), stored; its row. */
function storeSession(db: Db, personId: string, deviceId: string | null = null): SessionRow {
  const row: SessionRow = {
    id: randomUUID(),
    token_hash: randomUUID().replace(/-/g, '').repeat(2),
    person_id: personId,
    device_id: deviceId,
    created_at: LOGIN,
    last_used_at: LOGIN,
    expires_at: '2026-11-30T20:00:00.000Z',
    ended_at: null,
    end_reason: null,
  };
  insertSession(db, row);
  return row;
}

/** Where each of `rows` stands now: its end and reason, by id. */
const endsOf = (db: Db, rows: SessionRow[]) =>
  rows.map((row) => {
    const stored = findSessionByTokenHash(db, row.token_hash)!;
    return [stored.ended_at, stored.end_reason];
  });

describe('sessions (db)', () => {
  const data = useTestDatabase({ each: true });

  it("finds a session by its token's hash, ended or not, and nothing for a token no session has", () => {
    const session = storeSession(data.db, storePerson(data.db, 'Anna'));
    assert.deepEqual(findSessionByTokenHash(data.db, session.token_hash), session);
    endSessionRow(data.db, session.id, LATER, 'logged_out');
    // An ended session is still found: the request is told SESSION_ENDED, not that it has no session.
    assert.deepEqual(findSessionByTokenHash(data.db, session.token_hash), { ...session, ended_at: LATER, end_reason: 'logged_out' });
    assert.equal(findSessionByTokenHash(data.db, 'f'.repeat(64)), undefined);
  });

  it('ends a session once: ending it again, from another connection too, changes nothing and says so', () => {
    const session = storeSession(data.db, storePerson(data.db, 'Anna'));
    const second = openDatabase(data.dataDir);
    try {
      assert.equal(endSessionRow(data.db, session.id, LATER, 'logged_out'), true);
      // A logout racing a new login on the same PC: only the first end counts (and records session.end).
      assert.equal(endSessionRow(second, session.id, EVEN_LATER, 'replaced'), false);
    } finally {
      second.close();
    }
    assert.deepEqual(endsOf(data.db, [session]), [[LATER, 'logged_out']]);
    assert.equal(endSessionRow(data.db, randomUUID(), LATER, 'logged_out'), false);
  });

  it("ends every open session of one person (reset-pin), counts them, and leaves an ended one's reason and another person's sessions", () => {
    const anna = storePerson(data.db, 'Anna');
    const rita = storePerson(data.db, 'Rita');
    const annaAtDesk = storeSession(data.db, anna);
    const annaInRoom = storeSession(data.db, anna, randomUUID());
    const annaLoggedOut = storeSession(data.db, anna);
    endSessionRow(data.db, annaLoggedOut.id, LOGIN, 'logged_out');
    const ritas = storeSession(data.db, rita);
    assert.equal(endSessionsOfPerson(data.db, anna, LATER, 'pin_reset'), 2);
    assert.deepEqual(endsOf(data.db, [annaAtDesk, annaInRoom, annaLoggedOut, ritas]), [
      [LATER, 'pin_reset'],
      [LATER, 'pin_reset'],
      [LOGIN, 'logged_out'],
      [null, null],
    ]);
    assert.equal(endSessionsOfPerson(data.db, anna, EVEN_LATER, 'pin_reset'), 0);
  });

  it("lists and ends the open sessions made through one desk PC only, never the server PC's", () => {
    const anna = storePerson(data.db, 'Anna');
    const rita = storePerson(data.db, 'Rita');
    const reception = randomUUID();
    const annaAtReception = storeSession(data.db, anna, reception);
    const ritaAtReception = storeSession(data.db, rita, reception);
    const endedAtReception = storeSession(data.db, rita, reception);
    endSessionRow(data.db, endedAtReception.id, LOGIN, 'logged_out');
    const inRoom = storeSession(data.db, anna, randomUUID());
    const onServerPc = storeSession(data.db, anna, null);
    assert.deepEqual(
      openSessionsOfDevice(data.db, reception)
        .map((row) => row.id)
        .sort(),
      [annaAtReception.id, ritaAtReception.id].sort(),
    );
    assert.equal(endSessionsOfDevice(data.db, reception, LATER, 'device_revoked'), 2);
    assert.deepEqual(openSessionsOfDevice(data.db, reception), []);
    assert.deepEqual(endsOf(data.db, [annaAtReception, ritaAtReception, endedAtReception, inRoom, onServerPc]), [
      [LATER, 'device_revoked'],
      [LATER, 'device_revoked'],
      [LOGIN, 'logged_out'],
      [null, null],
      [null, null],
    ]);
  });

  it('moves the last use of one session and nothing else of it or of another', () => {
    const anna = storePerson(data.db, 'Anna');
    const used = storeSession(data.db, anna);
    const other = storeSession(data.db, anna);
    touchSession(data.db, used.id, LATER);
    assert.deepEqual(findSessionByTokenHash(data.db, used.token_hash), { ...used, last_used_at: LATER });
    assert.deepEqual(findSessionByTokenHash(data.db, other.token_hash), other);
  });

  it('forgets every session on a restore, ended ones too, and says how many; none is 0', () => {
    const anna = storePerson(data.db, 'Anna');
    const open = storeSession(data.db, anna);
    const ended = storeSession(data.db, anna, randomUUID());
    endSessionRow(data.db, ended.id, LATER, 'logged_out');
    assert.equal(forgetAllSessions(data.db), 2);
    assert.equal(findSessionByTokenHash(data.db, open.token_hash), undefined);
    assert.equal(findSessionByTokenHash(data.db, ended.token_hash), undefined);
    assert.equal(forgetAllSessions(data.db), 0);
  });
});

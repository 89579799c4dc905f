// The stored first answers of POSTs sent with an Idempotency-Key (clinic-api-1.3.md, "Versions,
// failures, retries": replayed for 24 h, one key space across the server and the desk).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  findIdempotentAnswer,
  insertIdempotentAnswer,
  removeExpiredAnswers,
  removeIdempotentAnswer,
  type IdempotentAnswerRow,
} from '../../src/db/idempotent-answers.js';
import { openDatabase } from '../../src/db/open-database.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** The answer of a credit note stored under `key` at 08:00 on 30 November, kept until `expiresAt`. */
function answer(key: string, expiresAt = '2026-12-01T08:00:00.000Z'): IdempotentAnswerRow {
  return {
    idempotency_key: key,
    operation: 'createCreditNote',
    fingerprint: `fingerprint of ${key}`,
    status: 201,
    body: '{"id":"e3b0c442-98fc-4c14-9afb-f4c8996fb924","amount_credited":5}',
    created_at: '2026-11-30T08:00:00.000Z',
    expires_at: expiresAt,
  };
}

describe('idempotent answers (db)', () => {
  const data = useTestDatabase({ each: true });

  it('gives back the answer stored under a key as it was first sent, and none under a key never used', () => {
    insertIdempotentAnswer(data.db, answer('desk-1'));
    assert.deepEqual(findIdempotentAnswer(data.db, 'desk-1'), answer('desk-1'));
    assert.equal(findIdempotentAnswer(data.db, 'DESK-1'), undefined, 'keys are compared as sent');
    assert.equal(findIdempotentAnswer(data.db, 'desk-2'), undefined);
  });

  it('refuses a second answer under a key, and an answer that is no 2xx', () => {
    insertIdempotentAnswer(data.db, answer('desk-1'));
    assert.throws(
      () => insertIdempotentAnswer(data.db, { ...answer('desk-1'), fingerprint: 'another request' }),
      (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    );
    for (const status of [199, 300, 422]) {
      assert.throws(
        () => insertIdempotentAnswer(data.db, { ...answer(`refused-${status}`), status }),
        (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_CHECK',
        `status ${status}`,
      );
    }
    assert.equal(findIdempotentAnswer(data.db, 'desk-1')?.fingerprint, 'fingerprint of desk-1');
  });

  it('removes the answers whose time is over at the instant they expire, and keeps those expiring a millisecond later', () => {
    insertIdempotentAnswer(data.db, answer('expired', '2026-12-01T07:59:59.999Z'));
    insertIdempotentAnswer(data.db, answer('expiring', '2026-12-01T08:00:00.000Z'));
    insertIdempotentAnswer(data.db, answer('kept', '2026-12-01T08:00:00.001Z'));
    removeExpiredAnswers(data.db, '2026-12-01T08:00:00.000Z');
    assert.deepEqual(
      ['expired', 'expiring', 'kept'].map((key) => findIdempotentAnswer(data.db, key)?.idempotency_key),
      [undefined, undefined, 'kept'],
    );
  });

  it("removes one key's answer, freeing the key, and no other", () => {
    insertIdempotentAnswer(data.db, answer('upload-1'));
    insertIdempotentAnswer(data.db, answer('upload-2'));
    removeIdempotentAnswer(data.db, 'upload-1');
    assert.equal(findIdempotentAnswer(data.db, 'upload-1'), undefined);
    assert.equal(findIdempotentAnswer(data.db, 'upload-2')?.idempotency_key, 'upload-2');
    insertIdempotentAnswer(data.db, { ...answer('upload-1'), fingerprint: 'the upload again' });
    assert.equal(findIdempotentAnswer(data.db, 'upload-1')?.fingerprint, 'the upload again');
  });

  it("shares one key space between connections: the desk's committed answer is the server's to replay, and its key taken there", () => {
    const desk = openDatabase(data.dataDir);
    try {
      desk.transaction(() => {
        insertIdempotentAnswer(desk, answer('desk-1'));
        assert.equal(findIdempotentAnswer(data.db, 'desk-1'), undefined, 'not before it commits');
      })();
      assert.deepEqual(findIdempotentAnswer(data.db, 'desk-1'), answer('desk-1'));
      assert.throws(
        () => insertIdempotentAnswer(data.db, answer('desk-1')),
        (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
      );
    } finally {
      desk.close();
    }
  });
});

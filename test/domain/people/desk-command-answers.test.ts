import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import type { DeskCommandFile } from '../../../src/domain/desk/desk-command-files.js';
import { CREATE_PATIENT } from '../../../src/domain/patients/create-patient.js';
import { deskCommandFingerprint, keyInFlight, keyState, rememberAnswer } from '../../../src/domain/people/desk-command-answers.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { AppError } from '../../../src/errors.js';
import { buildPatient, buildPayment, createTestInvoice } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';
import { DESK_USER } from '../../helpers/use-case-scenarios.js';

// The answers of desk commands sent with an Idempotency-Key (clinic-api-1.3.md, "Versions,
// failures, retries"): a desk PC whose answer was lost sends the command again and gets the first
// answer. Over HTTP: test/server/routes/desk.test.ts.

const ARGV = ['book-appointment', '--patient', 'P-1', '--start', 'today 14:00'];
const ANSWER = { exit_code: 0, stdout: 'Booked A-000001\n', stderr: '', download: null };
const file = (option: DeskCommandFile['option'], sha256: string): DeskCommandFile => ({ option, sha256, path: '/tmp/x', name: 'x.pdf' });

/** Sets the program's clock (Date) to `ms`. */
function at(ms: number): void {
  mock.timers.reset();
  mock.timers.enable({ apis: ['Date'], now: ms });
}

describe('deskCommandFingerprint', () => {
  it('is the same for the same command line, files and person, and differs in any of them', () => {
    const files = [file('file', 'a'.repeat(64)), file('token-file', 'b'.repeat(64))];
    const same = deskCommandFingerprint(ARGV, 'p-1', files);
    assert.equal(deskCommandFingerprint([...ARGV], 'p-1', [...files].reverse()), same, "the files' order does not matter");
    const others = [
      deskCommandFingerprint(ARGV, 'p-2', files),
      deskCommandFingerprint([...ARGV, '--allow-overlap'], 'p-1', files),
      deskCommandFingerprint(ARGV, 'p-1', [file('file', 'c'.repeat(64)), files[1]!]),
      deskCommandFingerprint(ARGV, 'p-1'),
    ];
    for (const other of others) assert.notEqual(other, same);
    assert.equal(deskCommandFingerprint(ARGV, 'p-1', []), deskCommandFingerprint(ARGV, 'p-1'), 'no files is no files');
  });
});

describe('the answers of desk commands', () => {
  const data = useTestDatabase({ each: true });
  afterEach(() => mock.timers.reset());
  const fingerprint = deskCommandFingerprint(ARGV, 'p-1');

  it('replays the answer stored under a key for the same command, and refuses the key for another (422 IDEMPOTENCY_KEY_REUSED)', () => {
    assert.equal(keyState(data.db, 'desk-1', fingerprint), 'free');
    rememberAnswer(data.db, 'desk-1', fingerprint, ANSWER);
    assert.deepEqual(keyState(data.db, 'desk-1', fingerprint), { replay: ANSWER });
    const refused = thrownBy(() => keyState(data.db, 'desk-1', deskCommandFingerprint(ARGV, 'p-2')));
    assert.ok(refused instanceof AppError, String(refused));
    assert.deepEqual([refused.code, refused.status], ['IDEMPOTENCY_KEY_REUSED', 422]);
  });

  it('keeps an answer 24 hours: replayed until the last millisecond, the key free after', () => {
    const start = Date.parse('2026-11-30T10:00:00.000Z');
    at(start);
    rememberAnswer(data.db, 'desk-1', fingerprint, ANSWER);
    at(start + 24 * 60 * 60 * 1000 - 1);
    assert.deepEqual(keyState(data.db, 'desk-1', fingerprint), { replay: ANSWER });
    at(start + 24 * 60 * 60 * 1000);
    assert.equal(keyState(data.db, 'desk-1', fingerprint), 'free');
  });

  it("keeps the first answer when the key was stored meanwhile, and refuses the key of one of the API's own requests", () => {
    rememberAnswer(data.db, 'desk-1', fingerprint, ANSWER);
    rememberAnswer(data.db, 'desk-1', fingerprint, { ...ANSWER, stdout: 'Booked A-000002\n' });
    assert.deepEqual(keyState(data.db, 'desk-1', fingerprint), { replay: ANSWER });
    performUseCase(CREATE_PATIENT, data.db, { header: { 'idempotency-key': 'api-1' }, body: buildPatient() }, DESK_USER);
    assert.equal((thrownBy(() => keyState(data.db, 'api-1', fingerprint)) as AppError).code, 'IDEMPOTENCY_KEY_REUSED');
  });

  it("says a key a desk's payment keeps for ever is kept: the payment replays itself", () => {
    const invoice = createTestInvoice(data.db);
    recordPayment(data.db, { path: { invoice_id: invoice.id }, headers: { 'idempotency-key': 'desk-pay' }, body: buildPayment() });
    assert.equal(keyState(data.db, 'desk-pay', fingerprint), 'kept');
  });
});

describe('keyInFlight', () => {
  it('runs a command sent again with its key only once the first run has ended, failed or not; other keys at once', async () => {
    const events: string[] = [];
    let finishFirst: (value: string) => void = () => {};
    const first = keyInFlight('desk-1', () => {
      events.push('first starts');
      return new Promise<string>((resolve) => (finishFirst = resolve));
    });
    const again = keyInFlight('desk-1', async () => {
      events.push('again starts');
      return 'again';
    });
    const other = keyInFlight('desk-2', async () => {
      events.push('other starts');
      return 'other';
    });
    assert.equal(await other, 'other');
    assert.deepEqual(events, ['first starts', 'other starts']);
    finishFirst('first');
    assert.deepEqual([await first, await again], ['first', 'again']);
    assert.deepEqual(events, ['first starts', 'other starts', 'again starts']);

    const failing = keyInFlight('desk-3', async () => {
      throw new Error('disk full');
    });
    const after = keyInFlight('desk-3', async () => 'ran');
    await assert.rejects(failing, /disk full/);
    assert.equal(await after, 'ran');
  });
});

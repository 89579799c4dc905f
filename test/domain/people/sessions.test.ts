import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { ADD_PERSON, DISABLE_PERSON } from '../../../src/domain/people/persons.js';
import { hashOneTimeCode, newOneTimeCode, readOneTimeCode } from '../../../src/domain/people/one-time-codes.js';
import { pinFault } from '../../../src/domain/people/pin.js';
import { logIn, useSession } from '../../../src/domain/people/sessions.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

/**
 * PINs, setup codes and sessions in the domain (interface 1.3.0, "Persons", "Sessions"), on the
 * program's clock (Date) moved by the test: the same rules whichever build runs them.
 */
describe('people: PINs, setup codes and sessions (domain)', () => {
  const data = useTestDatabase({ each: true });
  afterEach(() => mock.timers.reset());
  const at = (iso: string) => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  };
  const osUser = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
  const place = { deviceActor: osUser.actor, source: 'pc' };
  const codeOf = (error: unknown) => (error instanceof AppError ? [error.code, error.details] : error);
  /** A person with the PIN set through their setup code; returns the session's token. */
  const person = (name: string, pin: string, roles = 'admin') => {
    const added = performUseCase(ADD_PERSON, data.db, { body: { name, roles } }, osUser);
    return logIn(data.db, { person: name, pin: added.setup_code, newPin: pin }, place).token;
  };

  it('refuses weak PINs by their reason and takes the rest', () => {
    const cases: [string, string | null][] = [
      ['12345', 'length'],
      ['1234567890123', 'length'],
      ['', 'length'],
      ['12 456', 'not_digits'],
      ['١٢٣٤٥٦', 'not_digits'],
      ['000000', 'one_digit'],
      ['123456', 'sequence'],
      ['3456789', 'sequence'],
      ['987654', 'sequence'],
      ['890123', null],
      ['121212', 'repeated'],
      ['1231231', 'repeated'],
      ['12121', 'length'],
      ['482913', null],
      ['100000000000', null],
    ];
    for (const [pin, fault] of cases) assert.equal(pinFault(pin), fault, pin);
  });

  it('reads setup codes in any case, without dashes or spaces, I and L as 1 and O as 0', () => {
    const code = newOneTimeCode();
    assert.match(code, /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){2}$/);
    const typed = code.toLowerCase().replace(/-/g, ' ').replace(/1/g, 'l').replace(/0/g, 'o');
    assert.equal(readOneTimeCode(typed), code.replace(/-/g, ''));
    assert.equal(hashOneTimeCode(typed), hashOneTimeCode(code));
    assert.equal(readOneTimeCode('ABCD-EFGH-IJK'), null);
    assert.equal(readOneTimeCode('ABCD-EFGH-IJKU'), null);
  });

  it('locks after the fifth wrong PIN in a row, on every PC, for 15 minutes from it; a login resets the count', () => {
    at('2026-11-30T08:00:00.000Z');
    person('Anna', '482913');
    for (let i = 0; i < 4; i++) assert.throws(() => logIn(data.db, { person: 'anna', pin: '000001' }, place), /Wrong PIN/);
    // A right PIN before the fifth ends the run: four more may be wrong again.
    logIn(data.db, { person: 'anna', pin: '482913' }, place);
    for (let left = 4; left >= 1; left--) {
      assert.deepEqual(codeOf(catchError(() => logIn(data.db, { person: 'anna', pin: '000001' }, place))), [
        'LOGIN_FAILED',
        { reason: 'wrong_pin', attempts_left: left },
      ]);
    }
    at('2026-11-30T08:03:00.000Z');
    const locked = catchError(() => logIn(data.db, { person: 'anna', pin: '000001' }, place)) as AppError;
    assert.deepEqual([locked.status, locked.code, locked.details], [423, 'PERSON_LOCKED', { locked_until: '2026-11-30T08:18:00.000Z' }]);
    assert.equal(locked.headers['Retry-After'], '900');
    at('2026-11-30T08:17:59.999Z');
    assert.equal((catchError(() => logIn(data.db, { person: 'anna', pin: '482913' }, place)) as AppError).code, 'PERSON_LOCKED');
    at('2026-11-30T08:18:00.000Z');
    assert.ok(logIn(data.db, { person: 'anna', pin: '482913' }, place).token.startsWith('cls_'));
  });

  it('ends a session 30 minutes after its last use, 12 hours after its login, and at once for a disabled person', () => {
    at('2026-11-30T08:00:00.000Z');
    const token = person('Anna', '482913');
    at('2026-11-30T08:29:59.999Z');
    assert.ok(useSession(data.db, token));
    at('2026-11-30T08:59:59.998Z');
    assert.ok(useSession(data.db, token, { touch: false }));
    // Looking without using it (whoami) did not move its end.
    at('2026-11-30T08:59:59.999Z');
    assert.deepEqual(codeOf(catchError(() => useSession(data.db, token))), ['SESSION_ENDED', { reason: 'idle' }]);

    at('2026-11-30T09:00:00.000Z');
    const second = logIn(data.db, { person: 'Anna', pin: '482913' }, place).token;
    for (let minute = 25; minute < 12 * 60; minute += 25) {
      at(new Date(Date.parse('2026-11-30T09:00:00.000Z') + minute * 60_000).toISOString());
      assert.ok(useSession(data.db, second));
    }
    at('2026-11-30T21:00:00.000Z');
    assert.deepEqual(codeOf(catchError(() => useSession(data.db, second))), ['SESSION_ENDED', { reason: 'expired' }]);

    at('2026-11-30T21:00:01.000Z');
    const third = logIn(data.db, { person: 'Anna', pin: '482913' }, place).token;
    const rita = person('Rita', '573920', 'admin');
    performUseCase(DISABLE_PERSON, data.db, { path: { person: 'Anna' } }, osUser);
    assert.equal((catchError(() => useSession(data.db, third)) as AppError).code, 'PERSON_DISABLED');
    assert.ok(useSession(data.db, rita));
  });

  it('ends the session this OS user had on the PC when another logs in (replaced)', () => {
    const anna = person('Anna', '482913');
    const rita = logIn(data.db, { person: 'Anna', pin: '482913', replacing: anna }, place).token;
    assert.deepEqual(codeOf(catchError(() => useSession(data.db, anna))), ['SESSION_ENDED', { reason: 'replaced' }]);
    assert.ok(useSession(data.db, rita));
  });
});

/** The error `action` throws. */
function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

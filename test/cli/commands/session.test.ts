// `clinic login|logout|whoami` and `clinic staff set-pin` at the server PC (src/cli/commands/session.ts): clinic-api-1.3.md, "Persons" (set-pin) and "Sessions" (the token in this OS user's session.json, never printed; the usage errors, exit 2).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { localDateTime } from '../../../src/cli/desk-format.js';
import { systemUserActor } from '../../../src/domain/audit/system-user.js';
import { logOut, useSession } from '../../../src/domain/people/sessions.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { forPeople, jsonOf } from '../../helpers/desk-output.js';
import { SESSION_KEYS } from '../../helpers/api-shapes.js';
import { useConfigHome, useTestDatabase } from '../../helpers/fixtures.js';
import { programPlatform, runClinic, unwrapped, type CliResult } from '../../helpers/run-cli.js';

interface Session {
  id: string;
  person_name: string;
  roles: string[];
  last_used_at: string;
  expires_at: string;
}

/** A clinic 14 hours ahead of UTC: a time printed in the machine's zone or UTC would show. */
const CLINIC_ZONE = 'Etc/GMT-14';

describe('clinic login, logout, whoami and staff set-pin at the server PC', () => {
  const data = useTestDatabase();
  // session.json goes to this OS user's configuration folder: a temporary one, which spawned programs inherit.
  const configHome = useConfigHome();
  before(() => {
    setClinicTimeZone(data.db, CLINIC_ZONE);
  });
  const clinic = (args: string[], input?: string) => runClinic([...args, '--data', data.dataDir], input === undefined ? {} : { input });
  /** The token session.json keeps for this data directory; Windows keeps the file in %APPDATA%, which the test does not move. */
  const keptToken = (): string | undefined => {
    const file = join(configHome(), 'clinic', 'session.json');
    return existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { sessions: Record<string, string> }).sessions[resolve(data.dataDir)]
      : undefined;
  };
  const onWindows = programPlatform === 'win32';
  const osUser = systemUserActor().id;
  const usage = (result: CliResult) => {
    assert.equal(result.code, 2, result.stdout + result.stderr);
    return unwrapped(result.stderr).split('\n')[0];
  };

  it('sets a PIN with the setup code and the new PIN twice, then is logged in here, the token kept and never printed', async () => {
    const annaSetupCode = jsonOf<{ setup_code: string }>(
      await clinic(['staff', 'add', '--name', 'Anna Admin', '--role', 'admin', '--json']),
    ).setup_code;
    const set = await clinic(['staff', 'set-pin', '--as', 'anna admin', '--pin-stdin'], `${annaSetupCode}\n482913\n482913\n`);
    const { session } = jsonOf<{ session: Session }>(await clinic(['whoami', '--json']));
    assert.equal(
      forPeople(set),
      `Logged in as Anna Admin (admin) on ${hostname()}.\nThe session ends after 30 minutes without use, at the latest ${localDateTime(session.expires_at, CLINIC_ZONE)}.\n`,
    );
    if (!onWindows) {
      assert.match(keptToken() ?? '', /^cls_/);
      assert.ok(!set.stdout.includes(keptToken()!), 'the token is never printed');
    }
  });

  it('refuses two new PINs that differ, and standard input that ends early, as usage; the setup code stays unused', async () => {
    const added = jsonOf<{ setup_code: string }>(
      await clinic(['staff', 'add', '--name', 'Rita Reception', '--role', 'reception', '--json']),
    );
    const differ = await clinic(['staff', 'set-pin', '--as', 'Rita Reception', '--pin-stdin'], `${added.setup_code}\n573920\n573921\n`);
    assert.equal(usage(differ), 'error: the two new PINs differ; nothing was changed');
    const short = await clinic(['staff', 'set-pin', '--as', 'Rita Reception', '--pin-stdin'], `${added.setup_code}\n573920\n`);
    assert.equal(usage(short), 'error: --pin-stdin: standard input ended before line 3 (New PIN again)');
    const set = await clinic(
      ['staff', 'set-pin', '--as', 'Rita Reception', '--pin-stdin', '--json'],
      `${added.setup_code}\n573920\n573920\n`,
    );
    assert.equal(jsonOf<Session>(set).person_name, 'Rita Reception', 'the setup code still worked');
  });

  it("logs in with --pin-stdin, --json the Session without its token, ending this OS user's session before here", async () => {
    const ritasToken = keptToken();
    const session = jsonOf<Session & { token?: string }>(
      await clinic(['login', '--as', 'ANNA ADMIN', '--pin-stdin', '--json'], '482913\n'),
    );
    assert.deepEqual(Object.keys(session), SESSION_KEYS);
    assert.deepEqual([session.person_name, session.roles], ['Anna Admin', ['admin']]);
    if (!onWindows) {
      assert.notEqual(keptToken(), ritasToken);
      assert.throws(() => useSession(data.db, ritasToken!), { code: 'SESSION_ENDED', details: { reason: 'replaced' } });
    }
  });

  it('says who works here and as which OS user, without counting as use; an ended session says why', async () => {
    const first = jsonOf<{ session: Session; os_user: string; host: string }>(await clinic(['whoami', '--json']));
    assert.deepEqual([first.session.person_name, first.os_user, first.host], ['Anna Admin', osUser, hostname()]);
    assert.equal(
      forPeople(await clinic(['whoami'])),
      `You are Anna Admin (admin) on ${hostname()}.\nThe session ends after 30 minutes without use, at the latest ${localDateTime(first.session.expires_at, CLINIC_ZONE)}.\n`,
    );
    const again = jsonOf<{ session: Session }>(await clinic(['whoami', '--json']));
    assert.equal(again.session.last_used_at, first.session.last_used_at, 'whoami moved no idle end');
    if (onWindows) return;
    logOut(data.db, keptToken()!, 'another PC');
    assert.equal(
      unwrapped(forPeople(await clinic(['whoami']))),
      `No one is logged in here (The session was logged out); commands run as the OS user ${osUser} on ${hostname()}.\n`,
    );
    assert.deepEqual(jsonOf(await clinic(['whoami', '--json'])), { session: null, os_user: osUser, host: hostname() });
  });

  it('logs out, forgetting the token; without a session says so and exits 0', async () => {
    assert.equal((await clinic(['login', '--as', 'Anna Admin', '--pin-stdin'], '482913\n')).code, 0);
    assert.equal(forPeople(await clinic(['logout'])), 'Logged out.\n');
    if (!onWindows) assert.equal(keptToken(), undefined);
    assert.equal(forPeople(await clinic(['logout'])), 'No one was logged in here.\n');
    assert.deepEqual(jsonOf(await clinic(['logout', '--json'])), { ended: false });
    assert.equal((await clinic(['patient', 'find', 'x'])).stderr.split(':')[1], ' LOGIN_REQUIRED');
  });

  it('asks for --as with --pin-stdin, and for --pin-stdin where there is no terminal to ask on (exit 2)', async () => {
    assert.equal(
      usage(await clinic(['login', '--pin-stdin'], '482913\n')),
      'error: --pin-stdin needs --as NAME: the name cannot be asked once the PIN comes from standard input',
    );
    assert.equal(usage(await clinic(['login'])), 'error: no terminal to ask the name on: give --as NAME (and the PIN with --pin-stdin)');
    assert.equal(
      usage(await clinic(['login', '--as', 'Anna Admin'])),
      'error: no terminal to ask the PIN on: give it on standard input with --pin-stdin',
    );
    assert.equal(
      usage(await clinic(['staff', 'set-pin', '--as', 'Anna Admin', '--pin-stdin'], '')),
      'error: --pin-stdin: standard input ended before line 1 (Current PIN or setup code)',
    );
    assert.equal(
      usage(await clinic(['login', '--as', 'Anna Admin', '--pin-stdin'], '\n482913\n')),
      'error: --pin-stdin: standard input ended before line 1 (PIN)',
    );
    if (!onWindows) assert.equal(keptToken(), undefined, 'no one was logged in');
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it, mock } from 'node:test';
import { SESSION_KEYS } from '../../helpers/api-shapes.js';
import { useConfigHome, useTestDatabase } from '../../helpers/fixtures.js';
import { programPlatform, runClinic, testingExecutable, unwrapped } from '../../helpers/run-cli.js';
import { createPatientArgs } from '../../helpers/desk-args.js';

/**
 * People and roles at the server PC's desk (interface 1.3.0, "Persons", "Roles", "Sessions"):
 * everything as 1.2.0 until the first person, then a login for every command outside rows 1-3 and
 * 20, the audit trail naming the person. The clock is the program's Date, moved by the test.
 */
describe('clinic staff, login, logout, whoami: a person at the server PC (interface 1.3.0)', () => {
  const data = useTestDatabase({ each: true });
  // session.json goes to this OS user's configuration folder: a temporary one for these tests.
  const configHome = useConfigHome();
  afterEach(() => mock.timers.reset());
  /** The clock the test moves is this process's Date: only a program that runs in this process follows it (test/domain/people/sessions.test.ts has the same rules for every build). */
  const movesTheClock = {
    skip: testingExecutable || process.env.CLINIC_TEST_SPAWN === '1' ? 'the program runs in a process of its own, on its own clock' : false,
  };

  const clinic = (args: string[], input?: string) => runClinic([...args, '--data', data.dataDir], input === undefined ? {} : { input });
  const json = async (args: string[], input?: string) => {
    const result = await clinic([...args, '--json'], input);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const refusal = async (args: string[], input?: string) => {
    const result = await clinic([...args, '--json'], input);
    return { code: result.code, detail: (JSON.parse(result.stderr) as { detail: Record<string, unknown> }).detail };
  };
  /** Adds a person (as whoever is logged in) and sets their PIN with the setup code; leaves them logged in. */
  const addPerson = async (name: string, roles: string[], pin: string) => {
    const added = await json(['staff', 'add', '--name', name, ...roles.flatMap((role) => ['--role', role])]);
    await json(['staff', 'set-pin', '--as', name, '--pin-stdin'], `${String(added.setup_code)}\n${pin}\n${pin}\n`);
    return added;
  };
  const login = (name: string, pin: string) => clinic(['login', '--as', name, '--pin-stdin'], `${pin}\n`);
  const at = (iso: string) => {
    mock.timers.reset();
    mock.timers.enable({ apis: ['Date'], now: Date.parse(iso) });
  };
  const auditEvents = async () => {
    const events = await clinic(['audit', 'list', '--json', '--from', '2020-01-01', '--to', '2030-12-31']);
    return JSON.parse(events.stdout) as Record<string, unknown>[];
  };

  it('works as the OS user until the first person, who must be an admin; the setup code is shown once in Crockford base 32', async () => {
    assert.equal((await clinic(['patient', 'find', 'x'])).code, 0);
    const notAdmin = await refusal(['staff', 'add', '--name', 'Berta', '--role', 'reception']);
    assert.deepEqual([notAdmin.code, notAdmin.detail.code], [1, 'FIRST_PERSON_ADMIN']);
    const anna = await json(['staff', 'add', '--name', 'Anna Admin', '--role', 'reception', '--role', 'admin']);
    assert.deepEqual(Object.keys(anna), [
      'id',
      'name',
      'roles',
      'enabled',
      'pin_set',
      'locked_until',
      'last_login_at',
      'created_at',
      'setup_code',
      'setup_code_expires_at',
    ]);
    assert.deepEqual(anna.roles, ['admin', 'reception']);
    assert.equal(anna.pin_set, false);
    assert.match(String(anna.setup_code), /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    assert.equal(Date.parse(String(anna.setup_code_expires_at)) - Date.parse(String(anna.created_at)), 24 * 3600 * 1000);

    const needsLogin = await clinic(['patient', 'find', 'x']);
    assert.equal(needsLogin.code, 1);
    assert.equal(needsLogin.stderr, 'error: LOGIN_REQUIRED: this command needs a person; log in with: clinic login --as NAME\n');
    // Row 1 and row 20 still need no one.
    assert.equal((await clinic(['version'])).code, 0);
    assert.equal((await clinic(['check'])).code, 0);
  });

  it('sets the PIN with the setup code typed in any case, refusing weak PINs by reason, then logs the person in', async () => {
    const anna = await json(['staff', 'add', '--name', 'Anna', '--role', 'admin']);
    const typed = String(anna.setup_code).toLowerCase().replace(/-/g, ' ').replace(/1/g, 'l').replace(/0/g, 'o');
    for (const [pin, reason] of [
      ['12345', 'length'],
      ['1234567890123', 'length'],
      ['12a456', 'not_digits'],
      ['111111', 'one_digit'],
      ['123456', 'sequence'],
      ['987654', 'sequence'],
      ['121212', 'repeated'],
      ['1231231', 'repeated'],
    ] as const) {
      const weak = await refusal(['staff', 'set-pin', '--as', 'anna', '--pin-stdin'], `${typed}\n${pin}\n${pin}\n`);
      assert.deepEqual([weak.code, weak.detail.code, weak.detail.reason], [1, 'PIN_INVALID', reason], pin);
    }
    const session = await json(['staff', 'set-pin', '--as', 'ANNA', '--pin-stdin'], `${typed}\n890123\n890123\n`);
    assert.deepEqual(Object.keys(session), SESSION_KEYS);
    assert.deepEqual([session.person_name, session.roles, session.device_id], ['Anna', ['admin'], null]);
    assert.equal(Date.parse(String(session.expires_at)) - Date.parse(String(session.created_at)), 12 * 3600 * 1000);
    // The code was used: it sets no PIN again.
    const used = await refusal(['staff', 'set-pin', '--as', 'anna', '--pin-stdin'], `${typed}\n135790\n135790\n`);
    assert.deepEqual([used.detail.code, used.detail.reason], ['LOGIN_FAILED', 'wrong_pin']);
    const who = await json(['whoami']);
    assert.equal((who.session as Record<string, unknown>).person_name, 'Anna');
    assert.equal(who.host, hostname());
    // The token is kept for this OS user alone (Windows keeps it in %APPDATA%\\clinic, the user's own).
    if (programPlatform !== 'win32') {
      const file = join(configHome(), 'clinic', 'session.json');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(join(configHome(), 'clinic')).mode & 0o777, 0o700);
    }
    assert.equal((await clinic(['patient', 'find', 'x'])).code, 0);
  });

  it('names the person in the audit trail, which a 1.2.0 verifier still verifies', async () => {
    const anna = await addPerson('Anna', ['admin'], '482913');
    await json(createPatientArgs('Eva', 'Lang', 'eva@example.org', '+43 664 1234567'));
    const events = await auditEvents();
    const created = events.find((event) => event.action === 'person.create')!;
    assert.deepEqual([created.actor_type, created.subject_type, created.subject_id, created.patient_id], ['cli', 'person', anna.id, null]);
    const login = events.find((event) => event.action === 'session.create')!;
    assert.deepEqual([login.actor_type, login.actor_id, login.actor_name, login.source], ['person', anna.id, 'Anna', hostname()]);
    const patient = events.find((event) => event.action === 'patient.create')!;
    assert.deepEqual([patient.actor_type, patient.actor_name], ['person', 'Anna']);
    const verified = await clinic(['audit', 'verify']);
    assert.equal(verified.code, 0, verified.stderr);
  });

  it('keeps the cashier from refunding: reception takes money, billing gives it back (ROLE_FORBIDDEN with the roles)', async () => {
    await addPerson('Anna', ['admin'], '482913');
    await addPerson('Rita', ['reception'], '573920');
    const refund = await refusal(['refund', '--invoice', 'INV-2026-1', '--reason', 'charged twice']);
    assert.equal(refund.code, 1);
    assert.deepEqual(refund.detail, {
      code: 'ROLE_FORBIDDEN',
      message: refund.detail.message,
      allowed_roles: ['admin', 'billing'],
      roles: ['reception'],
    });
    const staffList = await refusal(['staff', 'list']);
    assert.equal(staffList.detail.code, 'ROLE_FORBIDDEN');
    assert.equal((await clinic(['patient', 'find', 'x'])).code, 0);
  });

  it('hides money and documents from a scheduler', async () => {
    await addPerson('Anna', ['admin'], '482913');
    const eva = await json(createPatientArgs('Eva', 'Lang', 'e@example.org', '+43 664 1234567'));
    await json(['invoice', 'create', '--patient-id', String(eva.patient_number), '--total', '80']);
    await addPerson('Sam', ['scheduler'], '573920');
    const shown = await json(['patient', 'show', String(eva.patient_number)]);
    assert.equal(shown.open_invoices, null);
    assert.equal(shown.documents, null);
    const patient = shown.patient as Record<string, unknown>;
    assert.deepEqual([patient.outstanding_balance, patient.outstanding_currency], [null, null]);
    const edited = await json(['patient', 'edit', String(eva.patient_number), '--notes', 'prefers mornings']);
    assert.deepEqual([edited.outstanding_balance, edited.outstanding_currency], [null, null]);
    await login('Anna', '482913');
    const byAdmin = await json(['patient', 'show', String(eva.patient_number)]);
    assert.equal((byAdmin.patient as Record<string, unknown>).outstanding_balance, '80.00');
  });

  it('never disables the last admin nor takes admin from them (LAST_ADMIN)', async () => {
    await addPerson('Anna', ['admin'], '482913');
    assert.equal((await refusal(['staff', 'disable', 'anna'])).detail.code, 'LAST_ADMIN');
    assert.equal((await refusal(['staff', 'set-roles', 'Anna', '--role', 'reception'])).detail.code, 'LAST_ADMIN');
    assert.equal((await refusal(['staff', 'add', '--name', 'ANNA', '--role', 'billing'])).detail.code, 'PERSON_NAME_TAKEN');
    assert.equal((await refusal(['staff', 'disable', 'nobody'])).detail.code, 'PERSON_NOT_FOUND');
    const blank = await clinic(['staff', 'add', '--name', '   ', '--role', 'billing', '--json']);
    assert.equal(blank.code, 1);
    assert.deepEqual(
      (JSON.parse(blank.stderr) as { detail: { type: string; loc: unknown[] }[] }).detail.map((issue) => [issue.type, issue.loc]),
      [['string_too_short', ['body', 'name']]],
    );
  });

  it("refuses a disabled person's next command at once (PERSON_DISABLED)", async () => {
    await addPerson('Anna', ['admin'], '482913');
    await addPerson('Rita', ['reception'], '573920');
    await login('Anna', '482913');
    await json(['staff', 'disable', 'Rita']);
    // Disabling twice changes nothing and records nothing more.
    await json(['staff', 'disable', 'Rita']);
    assert.equal(
      (await auditEvents()).filter(
        (event) => event.action === 'person.update' && (event.detail as { changed: string[] }).changed[0] === 'enabled',
      ).length,
      1,
    );
    await login('Rita', '573920').then((result) => assert.match(result.stderr, /PERSON_DISABLED/));
  });

  it('locks a person for 15 minutes after 5 wrong PINs in a row, right PIN too, then lets them in', movesTheClock, async () => {
    at('2026-11-30T08:00:00.000Z');
    await addPerson('Anna', ['admin'], '482913');
    for (let left = 4; left >= 1; left--) {
      const wrong = await refusal(['login', '--as', 'Anna', '--pin-stdin'], '000001\n');
      assert.deepEqual(
        [wrong.code, wrong.detail.code, wrong.detail.reason, wrong.detail.attempts_left],
        [1, 'LOGIN_FAILED', 'wrong_pin', left],
      );
    }
    const fifth = await refusal(['login', '--as', 'Anna', '--pin-stdin'], '000001\n');
    assert.deepEqual([fifth.detail.code, fifth.detail.locked_until], ['PERSON_LOCKED', '2026-11-30T08:15:00.000Z']);
    at('2026-11-30T08:14:59.000Z');
    assert.equal((await refusal(['login', '--as', 'Anna', '--pin-stdin'], '482913\n')).detail.code, 'PERSON_LOCKED');
    at('2026-11-30T08:15:00.000Z');
    assert.equal((await login('Anna', '482913')).code, 0);
    const events = await auditEvents();
    assert.equal(events.filter((event) => event.action === 'session.fail').length, 5);
    assert.equal(events.filter((event) => event.action === 'person.lock').length, 1);
  });

  it('ends a session 30 minutes after its last use and 12 hours after its login', movesTheClock, async () => {
    at('2026-11-30T08:00:00.000Z');
    await addPerson('Anna', ['admin'], '482913');
    at('2026-11-30T08:29:59.000Z');
    assert.equal((await clinic(['patient', 'find', 'x'])).code, 0);
    // Used at 08:29:59: good until 08:59:59.
    at('2026-11-30T08:59:58.000Z');
    assert.equal((await clinic(['patient', 'find', 'x'])).code, 0);
    at('2026-11-30T09:29:58.000Z');
    const idle = await refusal(['patient', 'find', 'x']);
    assert.deepEqual([idle.code, idle.detail.code, idle.detail.reason], [1, 'SESSION_ENDED', 'idle']);
    const plain = await clinic(['patient', 'find', 'x']);
    assert.match(unwrapped(plain.stderr).trimEnd(), /^error: SESSION_ENDED: .*; log in with: clinic login --as NAME$/);

    at('2026-11-30T10:00:00.000Z');
    await login('Anna', '482913');
    // Used every 25 minutes, it still ends 12 hours after the login.
    for (let used = Date.parse('2026-11-30T10:25:00.000Z'); used < Date.parse('2026-11-30T22:00:00.000Z'); used += 25 * 60 * 1000) {
      at(new Date(used).toISOString());
      const found = await clinic(['patient', 'find', 'x']);
      assert.equal(found.code, 0, `${new Date(used).toISOString()}: ${found.stderr}`);
    }
    at('2026-11-30T22:00:00.000Z');
    assert.equal((await refusal(['patient', 'find', 'x'])).detail.reason, 'expired');
  });

  it('switches person at a shared PC with one login, ending the previous session (replaced), and logs out', async () => {
    await addPerson('Anna', ['admin'], '482913');
    await addPerson('Rita', ['reception'], '573920');
    await login('Anna', '482913');
    assert.equal(((await json(['whoami'])).session as Record<string, unknown>).person_name, 'Anna');
    assert.equal((await login('Rita', '573920')).code, 0);
    assert.equal(((await json(['whoami'])).session as Record<string, unknown>).person_name, 'Rita');
    // The trail is the admin's to read.
    assert.equal((await refusal(['audit', 'list'])).detail.code, 'ROLE_FORBIDDEN');
    await login('Anna', '482913');
    const ends = (await auditEvents()).filter((event) => event.action === 'session.end');
    // Each login at this PC ended the one before: set-pin logs in too.
    assert.deepEqual(
      ends.map((event) => event.actor_name),
      ['Anna', 'Rita', 'Anna', 'Rita'],
    );
    assert.deepEqual(await json(['logout']), { ended: true });
    assert.deepEqual(await json(['logout']), { ended: false });
    assert.equal((await json(['whoami'])).session, null);
    assert.equal((await clinic(['patient', 'find', 'x'])).stderr.split(':')[1]?.trim(), 'LOGIN_REQUIRED');
  });

  it('ends the sessions of a person whose PIN is reset, and gives a new setup code', async () => {
    await addPerson('Anna', ['admin'], '482913');
    await addPerson('Rita', ['reception'], '573920');
    const ritaToken = await login('Rita', '573920');
    assert.equal(ritaToken.code, 0);
    await login('Anna', '482913');
    const reset = await json(['staff', 'reset-pin', 'rita']);
    assert.equal(reset.pin_set, false);
    assert.equal((await refusal(['login', '--as', 'Rita', '--pin-stdin'], '573920\n')).detail.code, 'PIN_NOT_SET');
    const again = await json(['staff', 'set-pin', '--as', 'Rita', '--pin-stdin'], `${String(reset.setup_code)}\n604918\n604918\n`);
    assert.equal(again.person_name, 'Rita');
  });

  it('lets the OS user verify the trail without a login, and reset a PIN once no admin can log in', async () => {
    await addPerson('Anna', ['admin'], '482913');
    await addPerson('Rita', ['reception'], '573920');
    assert.equal((await refusal(['audit', 'verify'])).detail.code, 'ROLE_FORBIDDEN');
    // A session that ended is no session for what the OS user may run without one. Rita's token
    // stays in this OS user's session.json while Anna, another OS user, disables her (another user's
    // configuration folder is another XDG_CONFIG_HOME here; on Windows it is the user's %APPDATA%).
    if (programPlatform !== 'win32') {
      const otherUser = mkdtempSync(join(tmpdir(), 'clinic-config-'));
      process.env.XDG_CONFIG_HOME = otherUser;
      try {
        await login('Anna', '482913');
        await json(['staff', 'disable', 'Rita']);
      } finally {
        process.env.XDG_CONFIG_HOME = configHome();
        rmSync(otherUser, { recursive: true, force: true });
      }
      assert.equal((await refusal(['patient', 'find', 'x'])).detail.code, 'PERSON_DISABLED');
      assert.equal((await clinic(['audit', 'verify'])).code, 0);
    }
    await json(['logout']);
    assert.equal((await clinic(['audit', 'verify'])).code, 0);
    assert.equal((await refusal(['staff', 'reset-pin', 'Anna'])).detail.code, 'LOGIN_REQUIRED');
    for (let wrong = 0; wrong < 5; wrong++) await clinic(['login', '--as', 'Anna', '--pin-stdin'], '000001\n');
    const reset = await json(['staff', 'reset-pin', 'Anna']);
    assert.equal(reset.name, 'Anna');
    assert.equal(reset.locked_until, null);
    const events = await (async () => {
      await json(['staff', 'set-pin', '--as', 'Anna', '--pin-stdin'], `${String(reset.setup_code)}\n604918\n604918\n`);
      return auditEvents();
    })();
    const resetEvent = events.find((event) => event.action === 'person.update' && event.actor_type === 'cli')!;
    assert.deepEqual(resetEvent.detail, { changed: ['pin'] });
  });

  it('carries the people in a backup, and a restore ends every session', async () => {
    await addPerson('Anna', ['admin'], '482913');
    const backup = join(configHome(), `clinic-${Date.now()}.tar.gz`);
    assert.equal((await clinic(['backup', backup])).code, 0);
    // The same data directory restored in place, as after a broken disk: the token kept for it names a session of the backup's.
    const replaced = `${data.dataDir}.replaced`;
    renameSync(data.dataDir, replaced);
    try {
      const restored = await clinic(['restore', backup, '--replaces', replaced]);
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal((await clinic(['patient', 'find', 'x'])).stderr.split(':')[1]?.trim(), 'LOGIN_REQUIRED');
      assert.equal((await login('Anna', '482913')).code, 0);
      assert.equal((await clinic(['patient', 'find', 'x'])).code, 0);
    } finally {
      rmSync(replaced, { recursive: true, force: true });
      rmSync(backup, { force: true });
    }
  });

  it('asks for --as with --pin-stdin, and for a terminal without it (exit 2)', async () => {
    await addPerson('Anna', ['admin'], '482913');
    assert.equal((await clinic(['login', '--pin-stdin'], '482913\n')).code, 2);
    assert.equal((await clinic(['login', '--as', 'Anna'])).code, 2);
    // No PIN on standard input is a script's mistake: refused as usage, not counted as a wrong PIN.
    assert.equal((await clinic(['login', '--as', 'Anna', '--pin-stdin'], '')).code, 2);
    assert.deepEqual(
      (await auditEvents()).filter((event) => event.action === 'session.fail'),
      [],
    );
    assert.equal((await refusal(['login', '--as', 'Nobody', '--pin-stdin'], '482913\n')).detail.reason, 'unknown_person');
  });
});

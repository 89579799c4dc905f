// Who works at this PC's command line (src/cli/desk-identity.ts): the OS user until the first person, then the person logged in here, their token in this OS user's session.json (clinic-api-1.3.md, "Roles", "Sessions", "Pairing": folder 0700, files 0600), and a desk PC's person on the server.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  beginCommand,
  configFolder,
  dataDirPlace,
  deskPcRun,
  fileNameOf,
  keepToken,
  keptToken,
  offerDownload,
  resolveDeskCaller,
  runForDeskPc,
  type DeskPcRun,
} from '../../src/cli/desk-identity.js';
import { systemUserActor } from '../../src/domain/audit/system-user.js';
import { ADD_PERSON } from '../../src/domain/people/persons.js';
import { logIn, logOut } from '../../src/domain/people/sessions.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { useConfigHome, useTestDatabase } from '../helpers/fixtures.js';

const unixModes = process.platform !== 'win32';

describe("this PC's command line: its configuration folder, session.json and caller (desk-identity)", () => {
  const data = useTestDatabase();
  const configHome = useConfigHome();
  const sessionFile = () => join(configHome(), 'clinic', 'session.json');

  const osUser = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
  /** A person of `roles` who set `pin` with their setup code, which logged them in at a PC; gives that session's token. */
  const person = (name: string, roles: string, pin: string) => {
    const added = performUseCase(ADD_PERSON, data.db, { body: { name, roles } }, osUser);
    return logIn(data.db, { person: name, pin: added.setup_code, newPin: pin }, { deviceActor: osUser.actor, source: 'pc' }).token;
  };
  /** The caller of `command` here, as program.ts's hook and the database's opening decide it. */
  const callerOf = (command: string) => {
    beginCommand(command);
    return resolveDeskCaller(data.db, data.dataDir);
  };

  it('keeps the configuration in $XDG_CONFIG_HOME/clinic, else ~/.config/clinic: a relative XDG_CONFIG_HOME is ignored', () => {
    assert.equal(configFolder({ XDG_CONFIG_HOME: '/home/empfang/.cfg', HOME: '/home/empfang' }), '/home/empfang/.cfg/clinic');
    assert.equal(configFolder({ XDG_CONFIG_HOME: 'cfg', HOME: '/home/empfang' }), '/home/empfang/.config/clinic');
    assert.equal(configFolder({ HOME: '/home/empfang' }), '/home/empfang/.config/clinic');
    assert.equal(configFolder({}), join(homedir(), '.config', 'clinic'));
  });

  it("keeps a token per place in session.json, this OS user's alone (folder 0700, file 0600), written whole", () => {
    // A folder made before, by anything, as the umask left it.
    mkdirSync(join(configHome(), 'clinic'), { mode: 0o755 });
    if (unixModes) chmodSync(join(configHome(), 'clinic'), 0o755);
    keepToken(dataDirPlace(data.dataDir), 'cls_server_pc');
    keepToken('desk https://clinic-pc:8080', 'cls_desk');
    assert.equal(keptToken(dataDirPlace(data.dataDir)), 'cls_server_pc');
    assert.equal(keptToken('desk https://clinic-pc:8080'), 'cls_desk');
    assert.equal(keptToken('desk https://other:8080'), undefined);
    if (unixModes) {
      assert.equal(statSync(join(configHome(), 'clinic')).mode & 0o777, 0o700);
      assert.equal(statSync(sessionFile()).mode & 0o777, 0o600);
    }
    keepToken('desk https://clinic-pc:8080', undefined);
    assert.deepEqual(JSON.parse(readFileSync(sessionFile(), 'utf8')), { sessions: { [dataDirPlace(data.dataDir)]: 'cls_server_pc' } });
    assert.deepEqual(readdirSync(join(configHome(), 'clinic')), ['session.json'], 'no temporary file left');
    keepToken(dataDirPlace(data.dataDir), undefined);
  });

  it('reads a damaged session.json as no session, and the next login writes it anew', () => {
    writeFileSync(sessionFile(), '{"sessions": {"/x": "cls_');
    assert.equal(keptToken('/x'), undefined);
    writeFileSync(sessionFile(), '{"sessions": null}');
    assert.equal(keptToken('/x'), undefined);
    keepToken('/x', 'cls_new');
    assert.deepEqual(JSON.parse(readFileSync(sessionFile(), 'utf8')), { sessions: { '/x': 'cls_new' } });
    keepToken('/x', undefined);
  });

  it('acts as the OS user while the clinic has no persons, then needs a person for all but the server PC rows and audit verify', () => {
    assert.deepEqual(callerOf('patient find'), { source: 'cli', actor: systemUserActor() });
    assert.equal(callerOf('api-key create').actor?.type, 'cli', 'no persons: even admin commands run as the OS user');
    person('Anna Admin', 'admin', '482913');
    assert.throws(() => callerOf('patient find'), { code: 'LOGIN_REQUIRED' });
    assert.equal(callerOf('backup').actor?.type, 'cli', 'row 20 needs no login');
    assert.equal(callerOf('audit verify').actor?.type, 'cli', 'audit verify needs no login');
  });

  it('acts as the person whose token is kept for this data directory, within their roles; an ended session is SESSION_ENDED', () => {
    const token = person('Rita Reception', 'reception', '573920');
    keepToken(dataDirPlace(data.dataDir), token);
    const caller = callerOf('patient find');
    assert.deepEqual(
      [caller.actor?.type, caller.actor?.name, caller.actor?.source, caller.roles],
      ['person', 'Rita Reception', hostname(), ['reception']],
    );
    assert.throws(() => callerOf('api-key list'), { code: 'ROLE_FORBIDDEN' });
    // Another data directory's session is no session here.
    keepToken(dataDirPlace(data.dataDir), undefined);
    keepToken(dataDirPlace(join(data.dataDir, 'other')), token);
    assert.throws(() => callerOf('patient find'), { code: 'LOGIN_REQUIRED' });
    keepToken(dataDirPlace(data.dataDir), token);
    logOut(data.db, token, 'pc');
    assert.throws(() => callerOf('patient find'), { code: 'SESSION_ENDED' });
    assert.equal(callerOf('audit verify').actor?.type, 'cli', 'an ended session is no session for what the OS user may run');
    keepToken(dataDirPlace(data.dataDir), undefined);
  });

  it("runs a desk PC's commands side by side on the server, each with its own person, files and download", async () => {
    const deskPc = (name: string, roles: DeskPcRun['caller']['roles'], file: string): DeskPcRun => ({
      db: data.db,
      caller: { source: 'api', actor: { type: 'person', id: name, name, source: `${name}'s PC`, requestId: null }, roles },
      files: new Map([[join(tmpdir(), file), `${name}.pdf`]]),
    });
    const seen = async (run: DeskPcRun, command: string, file: string) =>
      runForDeskPc(run, async () => {
        beginCommand(command);
        await new Promise((resolve) => setImmediate(resolve));
        const caller = resolveDeskCaller(data.db, data.dataDir);
        offerDownload(`/patients/${caller.actor?.name}/export`);
        await new Promise((resolve) => setImmediate(resolve));
        return [caller.actor?.name, fileNameOf(join(tmpdir(), file)), deskPcRun()?.download];
      });
    const anna = deskPc('Anna', ['admin'], 'a.part');
    const rita = deskPc('Rita', ['reception'], 'r.part');
    assert.deepEqual(await Promise.all([seen(anna, 'patient export', 'a.part'), seen(rita, 'patient find', 'r.part')]), [
      ['Anna', 'Anna.pdf', '/patients/Anna/export'],
      ['Rita', 'Rita.pdf', '/patients/Rita/export'],
    ]);
    await runForDeskPc(rita, async () => {
      beginCommand('patient export');
      assert.throws(
        () => resolveDeskCaller(data.db, data.dataDir),
        { code: 'ROLE_FORBIDDEN' },
        "the desk PC's person is held to their roles",
      );
    });
    assert.equal(deskPcRun(), undefined, 'outside those runs this process is no desk PC run');
    assert.equal(fileNameOf(join(tmpdir(), 'a.part')), 'a.part');
  });
});

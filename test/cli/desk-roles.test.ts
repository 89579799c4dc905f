import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { DESK_COMMAND_ROWS } from '../../src/cli/desk-roles.js';
import { OPERATIONS } from '../../src/server/api/api-operations.js';
import { apiDescription } from '../helpers/contract.js';
import { API_ROLE_ROWS } from '../helpers/role-matrix.js';
import { useConfigHome, useTestDatabase, useTestServer } from '../helpers/fixtures.js';
import { updatePersonRow } from '../../src/db/persons.js';
import { PAIR_DEVICE } from '../../src/domain/people/devices.js';
import { ADD_PERSON, findPerson } from '../../src/domain/people/persons.js';
import { hashPin } from '../../src/domain/people/pin.js';
import { connectionRunner, runUseCase } from '../../src/domain/use-case.js';
import { runClinic } from '../helpers/run-cli.js';

/**
 * The role × operation matrix of interface 1.3.0 ("Roles"), as the specification's table gives it,
 * letters for roles (a admin, r reception, p practitioner, b billing, s scheduler). The commands
 * and operations walked are the program's own (its command tree, its operations), so one added
 * without a row here (an operation's: API_ROLE_ROWS, test/helpers/role-matrix.ts) fails, and so
 * does a row the program declares otherwise.
 */
const LETTERS = { a: 'admin', r: 'reception', p: 'practitioner', b: 'billing', s: 'scheduler' } as const;
const ROLES = Object.values(LETTERS);
type Expected = string; // 'a r p' | 'no-login' | 'server-pc'

const SPEC_DESK_ROWS: Readonly<Record<string, Expected>> = {
  version: 'no-login',
  login: 'no-login',
  logout: 'no-login',
  whoami: 'no-login',
  'staff set-pin': 'no-login',
  'desk join': 'no-login',
  'desk status': 'no-login',
  'desk pair': 'a',
  'desk list': 'a',
  'desk revoke': 'a',
  'audit verify': 'a',
  'doctor list': 'a r p b s',
  'service list': 'a r p b s',
  'module list': 'a r p b s',
  'settings show': 'a r p b s',
  'patient find': 'a r p b s',
  'patient show': 'a r p b s',
  'create-patient': 'a r p s',
  'patient edit': 'a r p b s',
  'patient export': 'a',
  'patient erase': 'a',
  'appointment list': 'a r p b s',
  'appointment show': 'a r p b s',
  'book-appointment': 'a r p s',
  'appointment reschedule': 'a r p s',
  'appointment cancel': 'a r p s',
  'appointment arrived': 'a r p s',
  'appointment completed': 'a r p s',
  'appointment no-show': 'a r p s',
  'appointment confirm': 'a r p s',
  'reminders list': 'a r p s',
  'reminders show': 'a r p s',
  'reminders preview': 'a r p s',
  'reminders replies': 'a r p s',
  'document list': 'a r p b',
  'document save': 'a r p',
  'upload-document': 'a r p',
  'invoice list': 'a r p b',
  'invoice show': 'a r p b',
  'report day': 'a r p b',
  'notifications list': 'a r p b',
  'invoice create': 'a r b',
  'record-payment': 'a r b',
  'invoice void': 'a b',
  'invoice credit': 'a b',
  refund: 'a b',
  'audit list': 'a',
  'audit export': 'a',
  'api-key create': 'a',
  'api-key list': 'a',
  'api-key revoke': 'a',
  'webhook add': 'a',
  'webhook list': 'a',
  'webhook enable': 'a',
  'webhook replay': 'a',
  'webhook remove': 'a',
  'doctor add': 'a',
  'doctor edit': 'a',
  'doctor retire': 'a',
  'doctor reinstate': 'a',
  'service add': 'a',
  'service edit': 'a',
  'service retire': 'a',
  'service reinstate': 'a',
  'module enable': 'a',
  'module disable': 'a',
  'settings set-timezone': 'a',
  'settings set-currency': 'a',
  'settings set-contact-rule': 'a',
  'settings set-name': 'a',
  'settings set-country': 'a',
  'settings set-retention': 'a',
  'reminders set': 'a',
  'sms-gateway set': 'a',
  'sms-gateway show': 'a',
  'sms-gateway remove': 'a',
  'staff add': 'a',
  'staff list': 'a',
  'staff disable': 'a',
  'staff enable': 'a',
  'staff set-roles': 'a',
  'staff reset-pin': 'a',
  init: 'server-pc',
  serve: 'server-pc',
  backup: 'server-pc',
  restore: 'server-pc',
  upgrade: 'server-pc',
  check: 'server-pc',
  'tls init': 'server-pc',
  'autostart run': 'server-pc',
  'autostart install': 'server-pc',
  'autostart uninstall': 'server-pc',
  'autostart status': 'server-pc',
};

const rolesOf = (letters: string) =>
  letters
    .split(' ')
    .filter(Boolean)
    .map((letter) => LETTERS[letter as keyof typeof LETTERS]);

/** Every runnable command of the program's tree, with the command that runs it. */
async function deskCommands(): Promise<[path: string, command: Command][]> {
  const io = { stdout() {}, stderr() {}, isTty: false, stderrColumns: async () => undefined };
  const found: [string, Command][] = [];
  const walk = (command: Command, prefix: string) => {
    for (const sub of command.commands) {
      const path = `${prefix} ${sub.name()}`.trim();
      if (sub.commands.length > 0) walk(sub, path);
      else found.push([path, sub]);
    }
  };
  walk(await buildProgram(io), '');
  return found;
}

/**
 * Arguments that get a command past its own parsing to its action, where the role is checked first:
 * every argument and required option given a value of the right form (which names nothing stored,
 * so no allowed command changes anything).
 */
function argumentsFor(path: string, command: Command, scratch: string): string[] {
  const valueFor = (name: string) => {
    if (/amount|total|price/.test(name)) return '1';
    if (/date|from|to\b|start|end/.test(name)) return 'today';
    if (/duration/.test(name)) return '30';
    if (/out|target|fhir/.test(name)) return join(scratch, `missing-${name}`);
    return 'NOTHING-1';
  };
  // A file to read must exist (upload-document checks it as it parses); one to write must not.
  const positional = command.registeredArguments
    .filter((argument) => argument.required)
    .map((argument) => (argument.name() === 'file' ? join(scratch, 'missing-file') : valueFor(argument.name())));
  const options = command.options
    .filter((option) => option.mandatory)
    .flatMap((option) => [
      option.long!,
      ...(option.required || option.optional
        ? [option.attributeName() === 'file' ? join(scratch, 'given.txt') : valueFor(option.attributeName())]
        : []),
    ]);
  return [...positional, ...options, ...(USAGE_NEEDS[path] ?? [])];
}

/** What a command's own usage check needs besides its required arguments (record-payment takes --invoice or --invoice-id; patient erase --dry-run or --confirm). */
const USAGE_NEEDS: Readonly<Record<string, string[]>> = { 'record-payment': ['--invoice', 'INV-2099-1'], 'patient erase': ['--dry-run'] };

describe('the role matrix of interface 1.3.0: every desk command and every API operation, each role', () => {
  it('declares every desk command of the program with the row the specification gives it', async () => {
    const commands = (await deskCommands()).map(([path]) => path);
    for (const path of commands) {
      const declared = DESK_COMMAND_ROWS[path];
      assert.ok(declared !== undefined, `the command ${path} declares no row of the matrix`);
      const expected = SPEC_DESK_ROWS[path];
      assert.ok(expected !== undefined, `the command ${path} is new: give it its row of the specification's table here`);
      assert.deepEqual(
        typeof declared === 'string' ? declared : [...declared],
        expected.includes('-') ? expected : rolesOf(expected),
        path,
      );
    }
    assert.deepEqual(Object.keys(DESK_COMMAND_ROWS).sort(), [...commands].sort(), 'a row declared for a command the program does not have');
  });

  it("declares every API operation's roles as the specification's table, and x-clinic-roles says the same", () => {
    for (const op of OPERATIONS) {
      const expected = API_ROLE_ROWS[op.operationId];
      assert.ok(expected !== undefined, `${op.operationId} is new: give it its row of the specification's table here`);
      assert.deepEqual([...op.roles], rolesOf(expected), op.operationId);
      const described = (apiDescription.paths[op.path] as Record<string, Record<string, unknown>>)[op.method]!;
      assert.deepEqual(described['x-clinic-roles'], rolesOf(expected), `x-clinic-roles of ${op.operationId}`);
    }
  });

  describe('at the desk, a person of each one role', () => {
    const data = useTestDatabase();
    useConfigHome();
    let scratch: string;
    const pins = { admin: '482913', reception: '573920', practitioner: '604918', billing: '715029', scheduler: '826130' };
    const clinic = (args: string[], input?: string) => runClinic([...args, '--data', data.dataDir], input === undefined ? {} : { input });

    before(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'clinic-matrix-'));
      writeFileSync(join(scratch, 'given.txt'), 'a document\n');
      const codes: Record<string, string> = {};
      for (const role of ROLES) {
        // The first is added by the OS user, the others by that admin, logged in by setting her PIN.
        const added = await clinic(['staff', 'add', '--name', `Only ${role}`, '--role', role, '--json']);
        assert.equal(added.code, 0, added.stderr);
        codes[role] = String((JSON.parse(added.stdout) as { setup_code: string }).setup_code);
        if (role === 'admin')
          await clinic(['staff', 'set-pin', '--as', 'Only admin', '--pin-stdin'], `${codes.admin}\n${pins.admin}\n${pins.admin}\n`);
      }
      for (const role of ROLES.slice(1)) {
        const set = await clinic(
          ['staff', 'set-pin', '--as', `Only ${role}`, '--pin-stdin'],
          `${codes[role]}\n${pins[role]}\n${pins[role]}\n`,
        );
        assert.equal(set.code, 0, set.stderr);
      }
    });
    after(() => {
      rmSync(scratch, { recursive: true, force: true });
    });

    for (const role of ROLES) {
      it(`lets ${role} run what its row allows and refuses the rest with ROLE_FORBIDDEN`, async () => {
        const login = await clinic(['login', '--as', `Only ${role}`, '--pin-stdin'], `${pins[role]}\n`);
        assert.equal(login.code, 0, login.stderr);
        const wrong: string[] = [];
        for (const [path, command] of await deskCommands()) {
          const expected = SPEC_DESK_ROWS[path];
          // Row 20 runs as the OS user, not a person; rows 1-3 change who is logged in.
          if (expected === undefined || expected.includes('-')) continue;
          const result = await clinic([...path.split(' '), ...argumentsFor(path, command, scratch)]);
          const refused = result.stderr.startsWith('error: ROLE_FORBIDDEN');
          const allowed = rolesOf(expected).includes(role);
          if (refused === allowed)
            wrong.push(`${path}: ${allowed ? 'refused' : 'allowed'} (exit ${result.code}: ${result.stderr.split('\n')[0]})`);
        }
        assert.deepEqual(wrong, []);
      });
    }
  });

  describe('over the API, a person of each one role at a desk PC', () => {
    const server = useTestServer();
    const sessions: Partial<Record<string, { authorization: string; 'clinic-device': string }>> = {};
    const osUser = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'server-pc', requestId: null } };
    before(async () => {
      for (const role of ROLES) {
        const name = `Api ${role}`;
        runUseCase(ADD_PERSON, server.db, { body: { name, roles: role } }, osUser, connectionRunner(server.db));
        updatePersonRow(server.db, { ...findPerson(server.db, name)!, pin_hash: hashPin('482913') });
        const { code } = runUseCase(PAIR_DEVICE, server.db, { body: { name: `PC of ${role}` } }, osUser, connectionRunner(server.db));
        const joined = await server.request('POST', '/desk/join', { key: null, body: { code, host_name: role } });
        const device = String(joined.body.device_token);
        const login = await server.request('POST', '/sessions', {
          key: null,
          headers: { 'clinic-device': device },
          body: { person: name, pin: '482913' },
        });
        assert.equal(login.status, 201, login.text);
        sessions[role] = { authorization: `Bearer ${String(login.body.token)}`, 'clinic-device': device };
      }
    });

    it("refuses with ROLE_FORBIDDEN exactly the operations the specification's row does not give the role", async () => {
      const wrong: string[] = [];
      for (const op of OPERATIONS) {
        // Rows 1-2 need no person; POST /sessions is the login itself; ending one's session is tried last.
        if (op.roles.length === 0 || op.credentials === 'device' || op.operationId === 'endCurrentSession') continue;
        const path = op.path.replace(/\{(\w+)\}/g, () => '00000000-0000-4000-8000-000000000000');
        for (const role of ROLES) {
          const answer = await server.request(op.method.toUpperCase(), path, {
            key: null,
            headers: sessions[role]!,
            ...(op.method === 'get' ? {} : { body: {} }),
          });
          const refused = answer.status === 403 && answer.body?.detail?.code === 'ROLE_FORBIDDEN';
          const allowed = rolesOf(API_ROLE_ROWS[op.operationId]!).includes(role);
          if (refused === allowed) wrong.push(`${op.operationId} as ${role}: ${answer.status} ${answer.text.slice(0, 80)}`);
        }
      }
      assert.deepEqual(wrong, []);
    });
  });
});

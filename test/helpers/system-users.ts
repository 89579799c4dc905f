import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { otherUserSkipReason } from './run-cli.js';

/** A system user a test made: its name and ids, and a home of its own (the executable caches its addon there). */
export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** How a test user belongs to the test's group: as its primary group (the service user), as a member (desk staff), or not at all. */
export type Membership = 'primary' | 'member' | 'none';

const TOOLS = ['groupadd', 'groupdel', 'useradd', 'userdel', 'setpriv', 'id', 'getent'];

/** Whether `tool` is on the PATH. */
function hasTool(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why real system users and groups cannot be made here, for a test's `skip`, or false: it needs
 * root, the program runnable by other users (otherUserSkipReason) and shadow's and util-linux's
 * tools (CI runs as root in a Debian container that has them).
 */
export const systemUsersSkipReason: string | false =
  otherUserSkipReason || (TOOLS.filter((tool) => !hasTool(tool)).map((tool) => `needs ${tool}`)[0] ?? false);

/** Whether the system knows `name` in `database` (passwd, group). */
function known(database: 'passwd' | 'group', name: string): boolean {
  try {
    execFileSync('getent', [database, name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Removes a user (and the group of its own useradd made) if there is one. */
function removeUser(name: string): void {
  if (known('passwd', name)) execFileSync('userdel', [name], { stdio: 'ignore' });
  if (known('group', name)) execFileSync('groupdel', [name], { stdio: 'ignore' });
}

/**
 * Makes the system group `group` and the users `users` for the enclosing suite, before its tests,
 * and removes them after. The names are fixed, so a run cut short leaves them for the next run,
 * which makes them afresh. Read the users inside tests and hooks.
 */
export function useSystemUsers(group: string, users: Readonly<Record<string, Membership>>): Readonly<Record<string, SystemUser>> {
  const made: Record<string, SystemUser> = {};
  before(() => {
    for (const name of Object.keys(users)) removeUser(name);
    if (!known('group', group)) execFileSync('groupadd', ['--system', group]);
    for (const [name, membership] of Object.entries(users)) {
      const groupOptions = membership === 'primary' ? ['--gid', group] : membership === 'member' ? ['--groups', group] : [];
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', ...groupOptions, name]);
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }));
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }));
      const home = mkdtempSync(join(tmpdir(), `${name}-home-`));
      chownSync(home, uid, gid);
      made[name] = { name, uid, gid, home };
    }
  });
  after(() => {
    for (const user of Object.values(made)) rmSync(user.home, { recursive: true, force: true });
    for (const name of Object.keys(users)) removeUser(name);
    if (known('group', group)) execFileSync('groupdel', [group], { stdio: 'ignore' });
  });
  return new Proxy(made, {
    get(target, name: string) {
      const user = target[name];
      if (user === undefined) throw new Error(`useSystemUsers: no user ${name} (read users inside a test or hook)`);
      return user;
    },
  });
}

/** The gid of a system group. */
export function gidOf(group: string): number {
  return Number(execFileSync('getent', ['group', group], { encoding: 'utf8' }).split(':')[2]);
}

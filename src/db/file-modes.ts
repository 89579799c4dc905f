import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  type Dirent,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// The modes of the data directory (docs/install.md, "Where data lives"). Its owner is the user
// the server runs as; its group holds the desk staff, who run desk commands on the same files
// as themselves. So every folder is 0770 and every file 0660, and other users get nothing. On
// Linux a folder also has the setgid bit: whatever anyone makes in it (a document a desk user
// uploads, SQLite's -wal and -shm) takes the folder's group instead of its maker's, so the
// server and the other members can use it. Modes are set explicitly, whatever the umask of
// whoever runs clinic (0077 in an old systemd unit), which would otherwise take the group's
// bits away: a file's right after it is created (through its descriptor, before anything is in
// it), a folder's in its mkdir itself (makeFolderWithMode). Windows has no such modes (chmod there only sets the read-only flag, and fails
// while another process holds the file open): the data directory's access list does this work
// (docs/install.md, "Install on a Windows PC"), and nothing here runs there.

/** Whether this system has POSIX modes; false on Windows. */
export const HAS_MODES = process.platform !== 'win32';

/** Every file of the data directory: read and write for its owner and group, nothing for others. */
export const SHARED_FILE_MODE = 0o660;

/** The setgid bit of a folder: what is made in it takes its group (Linux; BSD and macOS always do so). */
export const SETGID = 0o2000;

/** Every folder of the data directory, the data directory itself included. */
export const SHARED_FOLDER_MODE = process.platform === 'linux' ? 0o2770 : 0o770;

/** The bits of a mode that concern other users: none may be set in the data directory. */
export const OTHERS_BITS = 0o007;

/** The permission bits of a mode, with setuid, setgid and sticky. */
const modeBits = (mode: number): number => mode & 0o7777;

/** A mode as `ls -l` users and `chmod` read it: 0660, 2770. */
export const octal = (mode: number): string => modeBits(mode).toString(8).padStart(4, '0');

/** Gives the open, new file `fd` SHARED_FILE_MODE, whatever the umask took from the mode it was created with. */
export function shareNewFile(fd: number): void {
  if (HAS_MODES) fchmodSync(fd, SHARED_FILE_MODE);
}

/** Gives the folder `path`, just made by this process, SHARED_FOLDER_MODE through a descriptor (a link swapped in is not followed), unless it has it. */
export function shareNewFolder(path: string): void {
  if (!HAS_MODES) return;
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    if (modeBits(fstatSync(fd).mode) !== SHARED_FOLDER_MODE) fchmodSync(fd, SHARED_FOLDER_MODE);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the one folder `path` (its parent must exist) with its final mode in the one step of
 * mkdir, so that a crash can never leave it with a mode it was not meant to keep (issue 42: a
 * power cut between mkdir and chmod left documents/<id> at 2750, closed to the desk group). The
 * umask is set aside for that one synchronous call, during which no other JavaScript of this
 * process runs (what node's threads create meanwhile is asked with its own explicit mode, which
 * a umask can only narrow). Linux takes no setgid bit from mkdir's mode but gives a new folder
 * its parent's, which every folder of a data directory has: only a folder whose parent lacks it
 * (the data directory itself, made in /var/lib/clinic) needs the chmod after, and start-up
 * repairs it if a crash comes between (repairFolderModes). Throws EEXIST when it exists.
 */
export function makeFolderWithMode(path: string): void {
  if (!HAS_MODES) {
    mkdirSync(path);
    return;
  }
  const umask = process.umask(0);
  try {
    mkdirSync(path, { mode: SHARED_FOLDER_MODE & 0o777 });
  } finally {
    process.umask(umask);
  }
  shareNewFolder(path);
}

/**
 * Makes the folder `path` with its missing parents, each SHARED_FOLDER_MODE from the moment it
 * exists (makeFolderWithMode), top down so that each takes its parent's setgid bit; an existing
 * folder is left as it is (its mode is its owner's choice, and `check` reports one open to
 * others). Returns the first folder made, as mkdir does, or undefined when `path` existed.
 */
export function makeSharedFolderSync(path: string): string | undefined {
  const missing: string[] = [];
  for (let folder = resolve(path); !existsSync(folder); folder = dirname(folder)) {
    missing.unshift(folder);
    if (folder === dirname(folder)) break;
  }
  let first: string | undefined;
  for (const folder of missing) {
    try {
      makeFolderWithMode(folder);
      first ??= folder;
    } catch (error) {
      // Made meanwhile by another process (a desk command beside the server): theirs stands.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return first;
}

/**
 * makeSharedFolderSync for the server's asynchronous file work (document uploads): the same
 * synchronous calls (the umask must not change while other work runs), a mkdir and a stat, in
 * microseconds.
 */
export function makeSharedFolder(path: string): Promise<string | undefined> {
  return new Promise((resolvePromise) => resolvePromise(makeSharedFolderSync(path)));
}

/** What repairFolderModes changed: the folder and its mode before. */
export interface RepairedFolder {
  path: string;
  from: string;
  to: string;
}

/**
 * Gives the folders of a data directory its group may enter (2770 on Linux) back the bits a crash
 * or an old program left off: the group's rwx and, on Linux, setgid (issue 42: a folder made and
 * not yet chmod'ed when the power went). Only bits are added, never taken (others' bits are
 * `check`'s to report); only folders this process may change (mayChangeModeOf); the data
 * directory itself, documents/ and each patient's folder in it, tmp/, tls/ and logs/. A data
 * directory closed to its group (0700) is one user's choice and is left alone. Serve runs it at
 * each start, as the user that owns the folders.
 */
export function repairFolderModes(dataDir: string): RepairedFolder[] {
  const repaired: RepairedFolder[] = [];
  if (!HAS_MODES) return repaired;
  const top = lstatSync(dataDir);
  if (!top.isDirectory() || (top.mode & 0o070) === 0) return repaired;
  const repair = (path: string) => {
    let info;
    try {
      info = lstatSync(path);
    } catch {
      return; // Not there (yet), or removed meanwhile.
    }
    if (!info.isDirectory() || !mayChangeModeOf(info.uid)) return;
    const wanted = modeBits(info.mode) | (SHARED_FOLDER_MODE & (0o070 | SETGID));
    if (wanted === modeBits(info.mode)) return;
    const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      fchmodSync(fd, wanted);
    } finally {
      closeSync(fd);
    }
    repaired.push({ path, from: octal(info.mode), to: octal(wanted) });
  };
  repair(dataDir);
  for (const name of ['documents', 'tmp', 'tls', 'logs']) repair(join(dataDir, name));
  let patients: Dirent[] = [];
  try {
    patients = readdirSync(join(dataDir, 'documents'), { withFileTypes: true });
  } catch {
    // No documents yet.
  }
  for (const entry of patients) if (entry.isDirectory()) repair(join(dataDir, 'documents', entry.name));
  return repaired;
}

/**
 * Whether this process may change the mode of a file owned by `owner`: it is the owner, or root.
 * A file of another user is left as it is: a desk user in the group works on the server's files
 * as they are, and `check` names one whose mode is wrong.
 */
export function mayChangeModeOf(owner: number): boolean {
  const uid = process.getuid?.();
  return uid === undefined || uid === 0 || owner === uid;
}

/** A user and group by number, as chown takes them. */
export interface FileOwner {
  uid: number;
  gid: number;
}

/**
 * The owner and group of the data directory when root runs this command and the directory
 * belongs to another user (the server's), or undefined. What root makes there would be root's,
 * 0600 or 0660 by mode, and the server, running as that user, could not open it (issue 42,
 * finding 5: a `sudo clinic restore` or `sudo clinic tls init` left a server that would not start).
 */
export function foreignOwnerOf(dataDir: string): FileOwner | undefined {
  if (!HAS_MODES || process.getuid?.() !== 0) return undefined;
  const folder = lstatSync(dataDir);
  return folder.uid === 0 ? undefined : { uid: folder.uid, gid: folder.gid };
}

/** Gives `path` and, for a folder, everything in it to `owner`; a link is changed itself, never followed (lchown). */
export function giveTo(path: string, owner: FileOwner): void {
  lchownSync(path, owner.uid, owner.gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) giveTo(join(path, entry), owner);
}

import { closeSync, constants, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

// The modes of the data directory (docs/install.md, "Where data lives"). Its owner is the user
// the server runs as; its group holds the desk staff, who run desk commands on the same files
// as themselves. So every folder is 0770 and every file 0660, and other users get nothing. On
// Linux a folder also has the setgid bit: whatever anyone makes in it (a document a desk user
// uploads, SQLite's -wal and -shm) takes the folder's group instead of its maker's, so the
// server and the other members can use it. Modes are set explicitly after creating, since the
// umask of whoever runs clinic (0077 in an old systemd unit) would otherwise take the group's
// bits away. Windows has no such modes (chmod there only sets the read-only flag, and fails
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

/** Gives the folder `path`, just made by this process, SHARED_FOLDER_MODE through a descriptor (a link swapped in is not followed). */
export function shareNewFolder(path: string): void {
  if (!HAS_MODES) return;
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    fchmodSync(fd, SHARED_FOLDER_MODE);
  } finally {
    closeSync(fd);
  }
}

/** `first` and each folder below it down to `path`: the folders a recursive mkdir that returned `first` made. */
function madeFolders(first: string | undefined, path: string): string[] {
  const made: string[] = [];
  if (first === undefined) return made;
  const top = resolve(first);
  for (let folder = resolve(path); ; folder = dirname(folder)) {
    made.unshift(folder);
    if (folder === top || folder === dirname(folder)) return made;
  }
}

/**
 * Makes the folder `path` with its missing parents, each SHARED_FOLDER_MODE; an existing folder
 * is left as it is (its mode is its owner's choice, and `check` reports one open to others).
 * Returns the first folder made, as mkdir does, or undefined when `path` existed.
 */
export function makeSharedFolderSync(path: string): string | undefined {
  const first = mkdirSync(path, { recursive: true, mode: 0o770 });
  for (const folder of madeFolders(first, path)) shareNewFolder(folder);
  return first;
}

/** makeSharedFolderSync for the server's asynchronous file work (document uploads). */
export async function makeSharedFolder(path: string): Promise<string | undefined> {
  const first = await mkdir(path, { recursive: true, mode: 0o770 });
  if (!HAS_MODES) return first;
  for (const folder of madeFolders(first, path)) {
    const handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      await handle.chmod(SHARED_FOLDER_MODE);
    } finally {
      await handle.close();
    }
  }
  return first;
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

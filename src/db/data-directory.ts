import { accessSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { errors } from '../errors.js';
import { fileFailure } from '../file-failure.js';
import { HAS_MODES, makeSharedFolderSync, mayChangeModeOf, SHARED_FILE_MODE, shareNewFile } from './file-modes.js';

/**
 * The data directory's safety (docs/decisions.md): a hostile --data or a link planted in it is a
 * coded refusal naming the path, never followed; its files are made with the group's access.
 */

/** Where a data directory keeps its database file. */
export const DATABASE_FILE = 'clinic.db';

/** SQLite's companions of the database file in WAL mode; they hold patient data too. */
export const COMPANION_SUFFIXES = ['-wal', '-shm'];

/**
 * Every file SQLite may open beside the database: its companions, and the rollback journal it
 * writes while a database is not (yet) in WAL mode. None may be a link.
 */
export const SQLITE_SUFFIXES = [...COMPANION_SUFFIXES, '-journal'];

/**
 * O_NOFOLLOW where the system has it: opening a link fails (ELOOP) instead of opening its target.
 * Windows has no such flag (fs.constants.O_NOFOLLOW is undefined there), nor links a user without
 * the right to make them can plant; there the lstat checks below do the work.
 */
export const NO_FOLLOW: number = process.platform === 'win32' ? 0 : (constants.O_NOFOLLOW ?? 0);

/** What a data directory's clinic.db is: absent, a 0-byte file, or a file with content. */
export type DatabaseState = 'absent' | 'empty' | 'present';

/** What kind of thing a non-regular file is, in words. */
function kindOf(info: Stats): string {
  if (info.isFile()) return 'a file';
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'neither a file nor a folder';
}

/** lstat of `path`, or undefined when nothing is there; any other failure is DATA_DIRECTORY_UNUSABLE naming the path. */
export function lstatIfPresent(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw errors.dataDirectoryUnusable(path, fileFailure(error, 'read and write'));
  }
}

/**
 * Refuses what lstat found at a file of the data directory unless it is a regular file: a link
 * (DATA_DIRECTORY_UNSAFE; followed, it would aim SQLite's writes and the chmod of makeSharedFile at a file
 * elsewhere, e.g. /etc/passwd when root runs a command) or a folder, FIFO or device.
 */
function requireRegularFile(path: string, info: Stats): void {
  if (info.isSymbolicLink()) {
    let target = '?';
    try {
      target = readlinkSync(path);
    } catch {
      // Gone meanwhile; the refusal stands.
    }
    throw errors.dataDirectoryUnsafe(path, target);
  }
  if (!info.isFile()) throw errors.dataDirectoryUnusable(path, `it is ${kindOf(info)}, not a file`);
}

/** Refuses a file of the data directory that is a link or no regular file (nothing there is fine). */
export function refuseUnlessRegularFile(path: string): void {
  const info = lstatIfPresent(path);
  if (info !== undefined) requireRegularFile(path, info);
}

/**
 * Checks a data directory before anything in it is opened, naming the path and the reason of any
 * refusal: the directory must be a directory this user can enter (DATA_DIRECTORY_UNUSABLE for a
 * file, /dev/null, a link loop, no permission), and clinic.db with its -wal, -shm and -journal
 * must be regular files, never links (DATA_DIRECTORY_UNSAFE). The directory itself may be a link
 * (IT may point ./data at another disk): that is the path the person chose; links inside it are
 * not.
 */
export function inspectDataDirectory(given: string): DatabaseState {
  // Named in full in every refusal, as the program sees it (Z:\tmp\data under Wine, not /tmp/data).
  const dataDir = resolve(given);
  let dir: Stats;
  try {
    dir = statSync(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw errors.dataDirectoryUnusable(dataDir, fileFailure(error, 'read and write'));
  }
  if (!dir.isDirectory()) throw errors.dataDirectoryUnusable(dataDir, `it is ${kindOf(dir)}, not a folder`);
  const path = join(dataDir, DATABASE_FILE);
  const database = lstatIfPresent(path);
  const companions = SQLITE_SUFFIXES.map((suffix) => lstatIfPresent(path + suffix));
  if (database !== undefined) requireRegularFile(path, database);
  companions.forEach((info, index) => info !== undefined && requireRegularFile(path + SQLITE_SUFFIXES[index]!, info));
  if (database === undefined) return 'absent';
  try {
    // A file this user cannot read would fail inside SQLite without its name. Writing is not
    // asked here: a read-only disk is named by serve's probe, and by SQLite when a command writes.
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw errors.dataDirectoryUnusable(path, fileFailure(error, 'read and write'));
  }
  // A database whose pages still wait in the WAL is not empty (SQLite writes page 1 when WAL is set).
  return database.size === 0 && (companions[0]?.size ?? 0) === 0 ? 'empty' : 'present';
}

/**
 * Checks a data directory (inspectDataDirectory) and creates it when it does not exist yet, with
 * its owner's and group's access (2770 on Linux, file-modes.ts); a failure names the path and the reason.
 */
export function ensureDataDirectory(dataDir: string): DatabaseState {
  const state = inspectDataDirectory(dataDir);
  try {
    makeSharedFolderSync(resolve(dataDir));
  } catch (error) {
    throw errors.dataDirectoryUnusable(resolve(dataDir), fileFailure(error, 'read and write'));
  }
  return state;
}

/**
 * Creates `path` readable and writable by its owner and group only (0660, whatever the umask),
 * or brings an existing file to 0660: one that others could read is closed to them, and one of
 * an older program (0600) is opened to the group. SQLite creates the -wal and -shm files with
 * exactly the mode of the database file, so they follow; an existing one is brought to 0660
 * here too. A file of another user is left as it is (only its owner may change its mode): a desk
 * user works on the server's files through the group, and `check` names one whose mode is
 * wrong. Windows has no such modes (file-modes.ts). A link or a non-regular file is refused,
 * never followed (requireRegularFile): creating uses O_EXCL, which fails on any link, and
 * changing a mode goes through a descriptor opened with O_NOFOLLOW.
 *
 * An existing file is opened only when its mode must change, which is never the case for a
 * file this program made: closing any descriptor of a database file drops every POSIX lock this
 * process holds on it, so a second connection opened in a process (a test beside its in-process
 * server) would strip the first of its locks, and a command in another process could then
 * checkpoint and remove the WAL under it (SQLite's "How To Corrupt", 2.2). A new file has no
 * connection yet, so creating it through a descriptor is safe.
 */
export function makeSharedFile(path: string): void {
  let info = lstatIfPresent(path);
  if (info === undefined) {
    if (createSharedFile(path)) return;
    // Made meanwhile by another process: treated as an existing one.
    info = lstatIfPresent(path);
    if (info === undefined) return;
  }
  requireRegularFile(path, info);
  if (!HAS_MODES || (info.mode & 0o777) === SHARED_FILE_MODE || !mayChangeModeOf(info.uid)) return;
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO swapped in since the lstat must not hang the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | NO_FOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') requireRegularFile(path, lstatSync(path));
    throw errors.dataDirectoryUnusable(path, fileFailure(error, 'read and write'));
  }
  try {
    if (!fstatSync(fd).isFile()) throw errors.dataDirectoryUnusable(path, 'it is not a regular file');
    fchmodSync(fd, SHARED_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/** Creates the new, empty file `path` (0660, O_EXCL); false when something is there already. */
function createSharedFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', SHARED_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw errors.dataDirectoryUnusable(path, fileFailure(error, 'read and write'));
  }
  try {
    shareNewFile(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

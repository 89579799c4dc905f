import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { getRawAsset } from 'node:sea';
import { errors } from '../errors.js';
import { fileFailure } from '../file-failure.js';

/** The SEA asset key of better-sqlite3's addon (scripts/package.mjs embeds it under this name). */
export const ADDON_ASSET = 'better_sqlite3.node';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The system's code of a failure (`EACCES`), or what it said. */
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code ?? String(error);

/** Whether this user owns the file (always, where the platform has no user ids). */
function isOurs(stat: Stats): boolean {
  return process.getuid === undefined || stat.uid === process.getuid();
}

/**
 * A directory only this user can enter: `$XDG_CACHE_HOME/clinic`, else `~/.cache/clinic`. The
 * addon is loaded as code, so it must never sit where another user could swap it (a shared
 * /tmp): the directory must be ours, not a symlink, and mode 0700.
 */
export function privateCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  // A relative XDG_CACHE_HOME is ignored, as the XDG Base Directory specification says.
  let base: string;
  try {
    base = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache');
  } catch (error) {
    // No HOME, and no home in the user database either (a service account made without one).
    throw errors.cacheFolderUnusable('~/.cache/clinic', `this user has no home folder (HOME is not set; ${codeOf(error)})`);
  }
  const dir = join(base, 'clinic');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    // HOME unset for a user whose home is /nonexistent, or a home this user may not write in: say so, not a bare EACCES.
    throw errors.cacheFolderUnusable(dir, `${fileFailure(error, 'make folder')}${env.HOME ? '' : '; HOME is not set'}`);
  }
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory; remove it so clinic can keep its SQLite library there`);
  if (!isOurs(stat)) {
    throw new Error(
      `${dir} belongs to another user; clinic loads code from it, so it must be this user's own (set XDG_CACHE_HOME to use another place)`,
    );
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/** Whether `path` is a regular file of ours whose SHA-256 is `expected`. */
function isIntactCopy(path: string, expected: string): boolean {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || !isOurs(stat)) return false;
    return sha256(readFileSync(path)) === expected;
  } catch {
    return false;
  }
}

/** Writes `bytes` to `path` through a temporary file, fsynced, so no reader ever sees half a file. */
function writeAtomically(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'wx', 0o700);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The file at `path` as the disk identifies it: any write to it, or another file put in its
 * place, changes its inode or ctime (which no one but the clock sets), so an equal identity
 * means the bytes verified under it are the bytes there now. Undefined when it is not a file of ours.
 */
function fileIdentity(path: string): string | undefined {
  try {
    const stat = lstatSync(path, { bigint: true });
    if (!stat.isFile() || (process.getuid !== undefined && stat.uid !== BigInt(process.getuid()))) return undefined;
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Whether `stamp` says that the file at `path`, as it is now, was found to have the SHA-256 `expected`. */
function wasVerified(path: string, stamp: string, expected: string): boolean {
  const identity = fileIdentity(path);
  try {
    return identity !== undefined && readFileSync(stamp, 'utf8') === `${expected} ${identity}`;
  } catch {
    return false;
  }
}

/**
 * Loads the better-sqlite3 addon that the single executable carries as an asset: writes it to
 * the private cache directory (once per build: the file name holds its hash), checks the file's
 * SHA-256 against the one recorded at build time, and only then loads it. The result is the
 * `nativeBinding` better-sqlite3 accepts instead of looking for its addon in node_modules.
 * Once verified, the file's identity is kept beside it (`.verified`), so that later starts hash
 * it again only if it changed: hashing 2 MB, and loading the hash code, would cost every desk
 * command about a fifth of its time.
 */
export function loadEmbeddedAddon(expectedSha256: string, dir = privateCacheDir()): object {
  const path = join(dir, `better_sqlite3-${expectedSha256.slice(0, 16)}.node`);
  const stamp = `${path}.verified`;
  if (!wasVerified(path, stamp, expectedSha256)) {
    if (!isIntactCopy(path, expectedSha256)) {
      const asset = new Uint8Array(getRawAsset(ADDON_ASSET) as ArrayBuffer);
      if (sha256(asset) !== expectedSha256)
        throw new Error('the SQLite library inside this program is damaged; reinstall the clinic program');
      writeAtomically(path, asset);
      // Checked again on disk: what is loaded is the file, not the bytes we meant to write.
      if (!isIntactCopy(path, expectedSha256)) throw new Error(`could not write an intact copy of the SQLite library to ${path}`);
    }
    const identity = fileIdentity(path);
    if (identity !== undefined) writeAtomically(stamp, Buffer.from(`${expectedSha256} ${identity}`));
  }
  const addon = { exports: {} as object };
  process.dlopen(addon, path);
  return addon.exports;
}

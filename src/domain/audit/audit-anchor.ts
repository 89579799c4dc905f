import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { HAS_MODES } from '../../db/file-modes.js';
import { NO_FOLLOW } from '../../db/data-directory.js';
import { fileFailure } from '../../file-failure.js';
import { nowIso } from '../clock.js';
import { canonicalJson } from './audit-event.js';

/**
 * The audit trail's anchor (issue 39, M2): checkpoints of the trail's head, each signed with a
 * key that only the server's user can read, in a folder only it can write. The desk group may
 * write clinic.db (it must, to work), so it could rewrite the trail and re-chain every hash; it
 * cannot sign a checkpoint, nor change or remove one, so a rewrite is found at the first
 * checkpoint that no longer matches (verify-audit-trail.ts). What it cannot catch: a rewrite of
 * the events after the last checkpoint, and anything the server's user or root does
 * (docs/install.md, "The audit trail").
 *
 *   <data>/audit-anchor/          0700, the server's user
 *   <data>/audit-anchor/key       0600, 32 random bytes as hex: the HMAC-SHA256 key
 *   <data>/audit-anchor/checkpoints  0600, one signed checkpoint per line, appended and fsynced
 */

/** The anchor's folder in the data directory. */
export const ANCHOR_DIR = 'audit-anchor';
const KEY_FILE = 'key';
const CHECKPOINTS_FILE = 'checkpoints';

/** Who wrote a checkpoint: the server (at its start, every hour, at its stop), a backup, or a restore. */
export type CheckpointKind = 'serve' | 'backup' | 'restore';

/** One checkpoint: the trail's last event when it was written, and what wrote it. */
export interface Checkpoint {
  seq: number;
  hash: string;
  at: string;
  kind: CheckpointKind;
  /** A backup's: when the backup was taken (its manifest's created_at). */
  backup_created_at?: string;
  /** A restore's: the backup it restored, and the last event its trail held. */
  restored_from?: { created_at: string; seq: number; hash: string };
}

/** A checkpoint as its line holds it: signed. */
type SignedCheckpoint = Checkpoint & { hmac: string };

/** What the anchor of a data directory holds, as this user may read it. */
export type AnchorState =
  | { state: 'missing' }
  | { state: 'unreadable'; reason: string }
  | {
      state: 'read';
      checkpoints: Checkpoint[];
      /** Lines whose signature does not verify (a changed or forged checkpoint), numbered from 1. */
      invalid: number[];
    };

/** The anchor's folder and files of `dataDir`. */
function pathsOf(dataDir: string) {
  const folder = join(dataDir, ANCHOR_DIR);
  return { folder, key: join(folder, KEY_FILE), checkpoints: join(folder, CHECKPOINTS_FILE) };
}

/** The HMAC-SHA256 of a checkpoint's canonical JSON, in hex. */
function signatureOf(key: Buffer, checkpoint: Checkpoint): string {
  return createHmac('sha256', key).update(canonicalJson(checkpoint), 'utf8').digest('hex');
}

/** The text of the file at `path`, a link in its place refused (ELOOP), never followed. */
function readText(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Reads the key, or undefined when there is none. Throws what else keeps it from being read. */
function readKey(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readText(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const key = Buffer.from(text.trim(), 'hex');
  if (key.length !== 32) throw new Error(`${path} does not hold a key of 32 bytes in hex`);
  return key;
}

/**
 * Every checkpoint of the anchor, each signature checked. A last line without its newline (the
 * write of a checkpoint cut by a power cut) is no checkpoint and is passed over.
 */
export function readAnchor(dataDir: string): AnchorState {
  const paths = pathsOf(dataDir);
  let key: Buffer | undefined;
  let text = '';
  try {
    key = readKey(paths.key);
    if (key === undefined) return { state: 'missing' };
    text = readText(paths.checkpoints);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && key !== undefined) return { state: 'read', checkpoints: [], invalid: [] };
    return { state: 'unreadable', reason: `${paths.folder}: ${fileFailure(error, 'read', "run as the server's user")}` };
  }
  const checkpoints: Checkpoint[] = [];
  const invalid: number[] = [];
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, index) => {
    let signed: SignedCheckpoint | undefined;
    try {
      signed = JSON.parse(line) as SignedCheckpoint;
    } catch {
      signed = undefined;
    }
    if (signed === undefined || typeof signed.hmac !== 'string') {
      invalid.push(index + 1);
      return;
    }
    const { hmac, ...checkpoint } = signed;
    const expected = Buffer.from(signatureOf(key!, checkpoint), 'hex');
    const given = Buffer.from(hmac, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || !Number.isSafeInteger(checkpoint.seq)) {
      invalid.push(index + 1);
      return;
    }
    checkpoints.push(checkpoint);
  });
  return { state: 'read', checkpoints, invalid };
}

/** Why this process may not make the anchor of `dataDir`, or undefined when it may. */
function mayNotMake(dataDir: string): string | undefined {
  if (!HAS_MODES) return undefined;
  const owner = statSync(dataDir).uid;
  // Made by another user (root restoring for the service, say) the server could not read it.
  if (process.getuid?.() !== owner)
    return `only the data directory's owner (uid ${owner}), the server's user, makes its audit anchor; this is uid ${process.getuid?.()}`;
  return undefined;
}

/** fsyncs the folder `path`, so an entry just made in it survives a power cut (Windows needs no such step). */
function syncFolder(path: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(path, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The anchor's key, made (with its folder) when there is none, by the data directory's owner
 * only: the folder 0700 and the key 0600 from the moment they exist (created with those modes,
 * and set again through the descriptor whatever the umask). The key is written to a file of its
 * own name and linked into place, so two processes making it at once agree on one.
 */
function keyToWrite(dataDir: string): { key: Buffer; made: boolean } {
  const paths = pathsOf(dataDir);
  const existing = readKey(paths.key);
  if (existing !== undefined) return { key: existing, made: false };
  const refusal = mayNotMake(dataDir);
  if (refusal !== undefined) throw new Error(refusal);
  try {
    mkdirSync(paths.folder, { mode: 0o700 });
    syncFolder(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = randomBytes(32);
  const temporary = join(paths.folder, `.key.${process.pid}`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  try {
    if (HAS_MODES) fchmodSync(fd, 0o600);
    writeSync(fd, `${key.toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, paths.key);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process made it first: its key is the one.
    return { key: readKey(paths.key)!, made: false };
  } finally {
    unlinkSync(temporary);
  }
  syncFolder(paths.folder);
  return { key, made: true };
}

/**
 * Signs `checkpoint` and appends it to the anchor of `dataDir` (made when there is none, by its
 * owner), fsynced before it returns. Returns the checkpoint written and whether the anchor was made just now.
 */
export function appendCheckpoint(dataDir: string, checkpoint: Omit<Checkpoint, 'at'>): { checkpoint: Checkpoint; made: boolean } {
  const { key, made } = keyToWrite(dataDir);
  // Through JSON once, so that what is signed is exactly what the line holds (no undefined fields).
  const full = JSON.parse(JSON.stringify({ ...checkpoint, at: nowIso() })) as Checkpoint;
  const line = `${JSON.stringify({ ...full, hmac: signatureOf(key, full) })}\n`;
  const path = pathsOf(dataDir).checkpoints;
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW, 0o600);
  try {
    if (HAS_MODES) fchmodSync(fd, 0o600);
    // One write of one line: appends of two processes never interleave within it.
    writeSync(fd, line);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (made) syncFolder(pathsOf(dataDir).folder);
  return { checkpoint: full, made };
}

/** The anchor's folder of `dataDir`, for messages. */
export const anchorFolderOf = (dataDir: string) => pathsOf(dataDir).folder;

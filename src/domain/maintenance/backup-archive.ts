import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, createReadStream, createWriteStream, openSync, unlinkSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join, resolve } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { create, list, Parser, type ReadEntry, type WriteEntry } from 'tar';
import { makeFolderWithMode, SHARED_FILE_MODE, shareNewFile } from '../../db/file-modes.js';
import { DATABASE_FILE, NO_FOLLOW } from '../../db/data-directory.js';
import { errors } from '../../errors.js';
import { readFailure } from '../named-files.js';
import type { FileDigest } from './data-dir.js';
import type { StepProgress } from './progress.js';

/** A stream that passes its bytes on and tells `progress` of each chunk. */
function countedBytes(progress: StepProgress): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      progress.advance(chunk.length);
      done(null, chunk);
    },
  });
}

/** The bytes of a tar of files of `sizes`: a 512-byte header each, the data in 512-byte blocks, two blocks at the end. */
export function tarBytes(sizes: readonly number[]): number {
  return sizes.reduce((total, size) => total + 512 + Math.ceil(size / 512) * 512, 1024);
}

// A backup is a gzipped tar (readable with `tar tzf` on any PC) of:
//   manifest.json          what follows, with each file's size and SHA-256
//   clinic.db              a consistent copy of the database
//   documents/<patient_id>/<document_id> ...
// The manifest is first, so `tar xzf FILE manifest.json` shows what a backup holds.

/** The archive entry that describes the others. */
export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'clinic-backup';
const FORMAT_VERSION = 1;

/** One file of the archive as the manifest records it. */
export interface ManifestEntry extends FileDigest {
  path: string;
  /**
   * The SHA-256 of each CHUNK_BYTES of a file larger than that (issue 39): restore checks each
   * before writing it. Absent for smaller files (their own SHA-256 is their one chunk's) and in
   * backups of programs before it.
   */
  chunks?: string[];
}

/** The bytes of a manifest's chunks: restore holds one in memory, checks it, then writes it. */
export const CHUNK_BYTES = 1024 * 1024;

/** The audit trail's last event in a backup's clinic.db (issue 39): what restore holds the restored trail to. */
export interface TrailHead {
  seq: number;
  hash: string;
}

/** manifest.json. */
export interface BackupManifest {
  format: typeof FORMAT;
  format_version: typeof FORMAT_VERSION;
  created_at: string;
  program_version: string;
  schema_version: number;
  entries: ManifestEntry[];
  /** The trail's last event in clinic.db, null for an empty trail; absent in backups of programs before it. */
  audit_head?: TrailHead | null;
  /** CHUNK_BYTES where entries give `chunks`; absent in backups of programs before them. */
  chunk_size?: number;
}

/** Builds the manifest of a new archive. */
export function buildManifest(fields: Omit<BackupManifest, 'format' | 'format_version'>): BackupManifest {
  return { format: FORMAT, format_version: FORMAT_VERSION, ...fields };
}

/** The folder of an archive (and of a data directory) that holds the documents. */
const DOCUMENTS_FOLDER = 'documents';

/** The longest entry path restore takes: documents/<patient_id>/<document_id> is 83 characters. */
const MAX_PATH_LENGTH = 255;
/**
 * The most files a backup holds, and the largest manifest.json restore reads (it is held in
 * memory): a manifest at both bounds (100,000 files of full-length paths, some 21 MB as backup
 * writes it) restores within the 300 MB of issue 25, where a list of 255,000 took 318 MB and
 * answered with 7.9 MB of text (issue 39, L6). `backup` refuses to write what `restore` would
 * refuse to read. docs/benchmarks.md has the figures.
 */
export const MAX_MANIFEST_ENTRIES = 100_000;
export const MAX_MANIFEST_BYTES = 24 * 1024 * 1024;
/** The most problems a refusal names: the rest are counted. */
const MOST_NAMED = 3;

/** `problems` as one sentence: the first few named, the rest counted (a hostile manifest must not make a refusal of megabytes). */
export function fewOf(problems: readonly string[]): string {
  const named = problems.slice(0, MOST_NAMED).join('; ');
  return problems.length > MOST_NAMED ? `${named}; and ${problems.length - MOST_NAMED} more` : named;
}

/** Whether each `/`-separated step of `path` is a plain name: no `.`, `..`, empty step, `\` or `:` (Windows' separators and drives). */
function hasPlainSteps(path: string): boolean {
  return (
    path.length <= MAX_PATH_LENGTH && path.split('/').every((step) => step !== '' && step !== '.' && step !== '..' && !/[\\:\0]/.test(step))
  );
}

/** Whether `path` may be in an archive: the database, or a file documents/<patient>/<document> (or one level up) of plain names. */
export function isArchivablePath(path: string): boolean {
  if (path === DATABASE_FILE) return true;
  const steps = path.split('/');
  return steps.length >= 2 && steps.length <= 3 && steps[0] === 'documents' && hasPlainSteps(path);
}

/** Whether `chunks` is the SHA-256 of each chunk of a file of `size` bytes: one per chunk, of a file larger than one. */
function validChunks(chunks: unknown, size: number, chunkSize: number | undefined): boolean {
  return (
    chunkSize === CHUNK_BYTES &&
    size > CHUNK_BYTES &&
    Array.isArray(chunks) &&
    chunks.length === Math.ceil(size / CHUNK_BYTES) &&
    chunks.every((hash) => /^[0-9a-f]{64}$/.test(String(hash)))
  );
}

/** The manifest in `text`, or an error saying the file is not a backup this program can read. */
export function parseManifest(text: string | undefined): BackupManifest {
  let manifest: Partial<BackupManifest> | undefined;
  try {
    manifest = text === undefined ? undefined : (JSON.parse(text) as Partial<BackupManifest>);
  } catch {
    manifest = undefined;
  }
  if (manifest?.format !== FORMAT || !Array.isArray(manifest.entries)) {
    throw errors.backupDamaged(`the archive has no readable ${MANIFEST_FILE}: it is not a clinic backup`);
  }
  if (manifest.format_version !== FORMAT_VERSION) {
    throw errors.backupDamaged(`it has format version ${String(manifest.format_version)}; this program reads version ${FORMAT_VERSION}`);
  }
  if (manifest.entries.length > MAX_MANIFEST_ENTRIES) {
    throw errors.backupDamaged(
      `${MANIFEST_FILE} lists ${manifest.entries.length} files, more than the ${MAX_MANIFEST_ENTRIES} a backup holds`,
    );
  }
  if (manifest.chunk_size !== undefined && manifest.chunk_size !== CHUNK_BYTES) {
    throw errors.backupDamaged(
      `${MANIFEST_FILE} gives chunks of ${String(manifest.chunk_size)} bytes; this program reads chunks of ${CHUNK_BYTES}`,
    );
  }
  // Compared without case: on Windows (and macOS) `documents/A/1` and `documents/a/1` are one file.
  const paths = new Set<string>();
  for (const entry of manifest.entries) {
    if (paths.has(String(entry?.path).toLowerCase()))
      throw errors.backupDamaged(`${MANIFEST_FILE} lists ${JSON.stringify(entry?.path).slice(0, 200)} twice`);
    paths.add(String(entry?.path).toLowerCase());
    const valid =
      typeof entry?.path === 'string' &&
      isArchivablePath(entry.path) &&
      Number.isSafeInteger(entry.size) &&
      entry.size >= 0 &&
      /^[0-9a-f]{64}$/.test(String(entry.sha256)) &&
      (entry.chunks === undefined || validChunks(entry.chunks, entry.size, manifest.chunk_size));
    if (!valid)
      throw errors.backupDamaged(`${MANIFEST_FILE} lists an entry this program does not accept: ${JSON.stringify(entry).slice(0, 200)}`);
  }
  // A listed file cannot also be the folder of another (documents/x beside documents/x/y).
  for (const entry of manifest.entries as ManifestEntry[]) {
    const steps = entry.path.toLowerCase().split('/');
    for (let depth = 1; depth < steps.length; depth += 1) {
      const folder = steps.slice(0, depth).join('/');
      if (paths.has(folder))
        throw errors.backupDamaged(`${MANIFEST_FILE} lists ${JSON.stringify(folder).slice(0, 200)} both as a file and as a folder`);
    }
  }
  if (!manifest.entries.some((entry) => entry.path === DATABASE_FILE)) throw errors.backupDamaged(`it holds no ${DATABASE_FILE}`);
  const head = manifest.audit_head;
  if (head !== undefined && head !== null && !(Number.isSafeInteger(head.seq) && head.seq >= 1 && /^[0-9a-f]{64}$/.test(String(head.hash))))
    throw errors.backupDamaged(`${MANIFEST_FILE} gives an audit_head this program does not accept: ${JSON.stringify(head).slice(0, 200)}`);
  return manifest as BackupManifest;
}

/**
 * A file as a new backup's manifest lists it: its size and SHA-256, and for a file larger than
 * CHUNK_BYTES the SHA-256 of each chunk, read once as a stream. A link is not followed (ELOOP).
 */
export async function digestForManifest(path: string, onBytes?: (bytes: number) => void): Promise<Omit<ManifestEntry, 'path'>> {
  const whole = createHash('sha256');
  const chunks: string[] = [];
  let chunk = createHash('sha256');
  let inChunk = 0;
  let size = 0;
  const file = await open(path, constants.O_RDONLY | NO_FOLLOW);
  // The stream closes the file when it ends or fails.
  for await (const data of file.createReadStream() as AsyncIterable<Buffer>) {
    whole.update(data);
    size += data.length;
    onBytes?.(data.length);
    for (let offset = 0; offset < data.length;) {
      const piece = data.subarray(offset, offset + CHUNK_BYTES - inChunk);
      chunk.update(piece);
      inChunk += piece.length;
      offset += piece.length;
      if (inChunk === CHUNK_BYTES) {
        chunks.push(chunk.digest('hex'));
        chunk = createHash('sha256');
        inChunk = 0;
      }
    }
  }
  if (inChunk > 0) chunks.push(chunk.digest('hex'));
  return { size, sha256: whole.digest('hex'), ...(size > CHUNK_BYTES ? { chunks } : {}) };
}

/**
 * Where `found` (the files of an archive or of a restored folder, by path) differs from the
 * manifest: missing, extra or changed files, one sentence each.
 */
export function differencesFromManifest(manifest: BackupManifest, found: ReadonlyMap<string, FileDigest>): string[] {
  const problems: string[] = [];
  const listed = new Set(manifest.entries.map((entry) => entry.path));
  for (const entry of manifest.entries) {
    const digest = found.get(entry.path);
    if (digest === undefined) problems.push(`${entry.path} is missing`);
    else if (digest.size !== entry.size || digest.sha256 !== entry.sha256)
      problems.push(`${entry.path} does not match its SHA-256 in ${MANIFEST_FILE}`);
  }
  for (const path of found.keys()) {
    if (!listed.has(path)) problems.push(`${path} is not listed in ${MANIFEST_FILE}`);
  }
  return problems;
}

/**
 * Writes the gzipped tar `file` (a new file, mode 0600: it holds patient data): the manifest
 * first, then each entry read from its source path on disk. `signal` stops it midway (a server
 * stopping); the caller removes what was written. `progress` is told of the tar's bytes (before
 * gzip, so that they count towards tarBytes) and of each file begun.
 */
export async function writeArchive(
  file: string,
  manifestSource: string,
  sources: ReadonlyMap<string, string>,
  signal?: AbortSignal,
  progress?: StepProgress,
): Promise<void> {
  // Keyed as tar names what it reads: on Windows, Z:\x\y is Z:/x/y there (entry.absolute).
  const key = (source: string) => resolve(source).replace(/\\/g, '/');
  const archivePathOf = new Map<string, string>([[key(manifestSource), MANIFEST_FILE]]);
  for (const [path, source] of sources) archivePathOf.set(key(source), path);
  const pack = create(
    {
      // Gzipped below (zlib, at the same default level), after the tar's bytes are counted.
      gzip: false,
      // No owner names or ids: the archive is restored on another PC, by another user.
      portable: true,
      noDirRecurse: true,
      // Files are read 1 MiB at a time (tar's default is 16 MiB), and gzipped by zlib on its
      // worker threads: the server's scheduled backups must not hold its one thread for long.
      maxReadSize: 1024 * 1024,
      cwd: '/',
      // Sources are absolute paths from two folders (the staging copy and the data directory);
      // each is stored under its archive name instead.
      onWriteEntry(entry: WriteEntry) {
        entry.path = archivePathOf.get(key(entry.absolute)) ?? entry.path;
        progress?.advance(0, 1);
      },
      onwarn: () => {},
    },
    [manifestSource, ...sources.values()],
  );
  const output = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  if (progress === undefined) await pipeline(pack, createGzip(), output, { signal });
  else await pipeline(pack, countedBytes(progress), createGzip(), output, { signal });
}

/**
 * Whether an archive holds a manifest, and the size and SHA-256 of every other file entry, read
 * without extracting it; `progress` is told of the archive's bytes read and of each file entry.
 */
export async function readArchive(
  file: string,
  signal?: AbortSignal,
  progress?: StepProgress,
): Promise<{ hasManifest: boolean; files: Map<string, FileDigest> }> {
  const files = new Map<string, FileDigest>();
  let hasManifest = false;
  const parser = list({
    strict: true,
    onReadEntry(entry: ReadEntry) {
      const path = entry.path;
      if (entry.type !== 'File') return;
      progress?.advance(0, 1);
      if (path === MANIFEST_FILE) {
        hasManifest = true;
        entry.resume();
        return;
      }
      const hash = createHash('sha256');
      let size = 0;
      entry.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
      });
      entry.on('end', () => files.set(path, { size, sha256: hash.digest('hex') }));
    },
  });
  // Piped as tar's own `list({ file })` does, with a read stream that `signal` can end.
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(file, { signal });
    if (progress !== undefined) stream.on('data', (chunk) => progress.advance(chunk.length));
    stream.on('error', reject);
    parser.on('error', reject);
    parser.on('end', resolve);
    stream.pipe(parser);
  });
  return { hasManifest, files };
}

/** A tar entry type in words, for a refusal. */
const KIND_OF_ENTRY: Readonly<Record<string, string>> = {
  SymbolicLink: 'a symbolic link',
  Link: 'a hard link',
  CharacterDevice: 'a device',
  BlockDevice: 'a device',
  FIFO: 'a FIFO',
};

/** An entry's name as a refusal shows it: quoted, control characters escaped, cut at 120 characters (it is the archive's, not ours). */
const quoted = (path: string) => JSON.stringify(path.length > 120 ? `${path.slice(0, 120)}…` : path);

/** The file being written from the current entry. */
interface EntryBeingWritten {
  path: string;
  fd: number;
  hash: Hash;
  expected: ManifestEntry;
  written: number;
  /**
   * The SHA-256 each chunk must have before it is written: the manifest's `chunks`, or for a
   * file of one chunk at most its own SHA-256; undefined (a large file of an older backup): written
   * as it comes and checked at its end.
   */
  chunkHashes: readonly string[] | undefined;
  /** The current chunk: its bytes, held until their SHA-256 is checked, and that hash so far. */
  pending: Buffer[];
  pendingBytes: number;
  chunkHash: Hash;
  chunkIndex: number;
}

/**
 * Extracts a backup archive into the new, empty, private folder `into`, trusting nothing in it,
 * and returns its manifest. manifest.json is read first (it comes first in an archive `backup`
 * wrote; one repacked by hand, with `tar czf FILE -C folder .`, is read once to find it); then
 * every entry is checked against it before a byte of it is written: only regular files and
 * folders, plain relative paths, each file listed once with the size the manifest gives. A link,
 * device, `../` or absolute path, an unlisted, repeated or resized entry is BACKUP_DAMAGED naming
 * the entry, and a file whose bytes differ from the manifest's SHA-256 too; so no more than the
 * manifest declares is ever written. Each file is created by this program (O_EXCL, O_NOFOLLOW,
 * 0660; folders 2770 on Linux, as everything in a data directory: file-modes.ts), owned by the
 * user restoring, whatever mode or owner the archive records.
 * The archive is read as a stream and written synchronously chunk by chunk, so memory stays
 * bounded whatever it holds (a gzip bomb inflates 16 KiB at a time).
 */
export async function extractArchive(
  file: string,
  into: string,
  /** Called with the manifest's total of bytes before any other entry is written; throws to refuse (a disk too small). */
  beforeWriting: (declaredBytes: number) => void = () => {},
  /** Told of the archive's bytes read, of the files the manifest lists, and of each written. */
  progress?: StepProgress,
): Promise<BackupManifest> {
  try {
    return await extractEntries(file, into, beforeWriting, undefined, progress);
  } catch (error) {
    if (error !== MANIFEST_NOT_FIRST) throw error;
  }
  // Nothing was written: the first entry was not the manifest.
  const manifest = await findManifest(file);
  return extractEntries(file, into, beforeWriting, manifest, progress);
}

/** Thrown by extractEntries, before it wrote anything, when the archive does not begin with its manifest. */
const MANIFEST_NOT_FIRST = new Error('manifest.json is not the first entry');

/** An entry's path as restore compares it: without the `./` of `tar -C folder .`, a folder without its trailing `/`. */
function entryPath(entry: ReadEntry): string {
  const relative = entry.path.replace(/^(\.\/)+/, '');
  return entry.type === 'Directory' ? relative.replace(/\/+$/, '') : relative;
}

/**
 * Feeds the gzipped tar `file` to `parser` 16 KiB at a time, until the tar's end marker (what
 * follows is not read, as GNU tar ignores it) or until `stop()` says so. A file that is no gzip
 * is BACKUP_DAMAGED.
 */
async function feedArchive(file: string, parser: Parser, stop: () => boolean, progress?: StepProgress): Promise<void> {
  let sawEnd = false;
  parser.on('eof', () => (sawEnd = true));
  const gunzip = createGunzip();
  // pipe() does not pass on the file's own errors (no permission, an I/O error): they would end
  // the process unhandled. Passed on here, they end the loop below as a coded refusal.
  // A file this user may not read is not a damaged backup: FILE_UNREADABLE says which and why.
  const source = createReadStream(file).on('error', (error) => gunzip.destroy(errors.fileUnreadable(file, readFailure(error))));
  if (progress !== undefined) source.on('data', (chunk) => progress.advance(chunk.length));
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      parser.write(chunk);
      if (stop() || sawEnd) return;
    }
    parser.end();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('Z_'))
      throw errors.backupDamaged(`it is not a readable gzip file (${(error as Error).message})`);
    throw error;
  } finally {
    gunzip.destroy();
    source.destroy();
  }
}

/**
 * Collects the manifest entry's bytes into one buffer of the size its header gives (at most
 * MAX_MANIFEST_BYTES, checked before), never a second copy: its text is read from that buffer,
 * which is then let go, so a large manifest costs its bytes once besides what it parses into.
 */
function manifestBytesOf(entry: ReadEntry): { text(): string } {
  let bytes: Buffer | undefined = Buffer.allocUnsafe(entry.size);
  let length = 0;
  entry.on('data', (chunk: Buffer) => {
    const room = bytes!.length - length;
    length += chunk.copy(bytes!, length, 0, Math.min(chunk.length, room));
  });
  return {
    text() {
      const text = bytes!.toString('utf8', 0, length);
      bytes = undefined;
      return text;
    },
  };
}

/** Reads an archive only to find its manifest.json (every other entry is skipped unread). */
async function findManifest(file: string): Promise<BackupManifest> {
  let text: string | undefined;
  let failure: unknown;
  const parser = new Parser({ strict: true, maxMetaEntrySize: 64 * 1024 });
  parser.on('error', (error: Error) => (failure ??= errors.backupDamaged(`it is not a readable tar archive (${error.message})`)));
  parser.on('entry', (entry: ReadEntry) => {
    if (text !== undefined || entryPath(entry) !== MANIFEST_FILE || entry.type !== 'File') return entry.resume();
    if (entry.size > MAX_MANIFEST_BYTES) {
      failure ??= errors.backupDamaged(`its ${MANIFEST_FILE} is ${entry.size} bytes, more than ${MAX_MANIFEST_BYTES}`);
      return entry.resume();
    }
    const bytes = manifestBytesOf(entry);
    entry.on('end', () => (text = bytes.text()));
  });
  await feedArchive(file, parser, () => failure !== undefined || text !== undefined);
  if (failure !== undefined) throw failure;
  return parseManifest(text);
}

/** extractArchive's work, with the manifest read beforehand (`preloaded`) or from the first entry. */
async function extractEntries(
  file: string,
  into: string,
  beforeWriting: (declaredBytes: number) => void,
  preloaded: BackupManifest | undefined,
  progress: StepProgress | undefined,
): Promise<BackupManifest> {
  let manifest: BackupManifest | undefined;
  const listed = new Map<string, ManifestEntry>();
  // documents/ may come as a folder even when it holds no document.
  const folders = new Set<string>([DOCUMENTS_FOLDER]);
  const done = new Set<string>();
  const made = new Set<string>();
  let current: EntryBeingWritten | undefined;
  let failure: unknown;
  const refuse = (reason: string) => {
    failure ??= errors.backupDamaged(reason);
  };
  let manifestSeen = false;

  /** Takes in the manifest's entries, and lets `beforeWriting` refuse before any is written. */
  const accept = (read: BackupManifest) => {
    manifest = read;
    for (const listedEntry of read.entries) {
      listed.set(listedEntry.path, listedEntry);
      const steps = listedEntry.path.split('/');
      for (let depth = 1; depth < steps.length; depth += 1) folders.add(steps.slice(0, depth).join('/'));
    }
    beforeWriting(read.entries.reduce((total, listedEntry) => total + listedEntry.size, 0));
    progress?.expect({ totalFiles: read.entries.length });
  };
  if (preloaded !== undefined) accept(preloaded);

  /**
   * `make()` (a folder or a file at `path`), with a path that is already there (the manifest's
   * checks leave none, but a disk that ignores case might) refused as the archive's fault.
   */
  const refuseCollision = <T>(path: string, make: () => T): T => {
    try {
      return make();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw errors.backupDamaged(`entry ${quoted(path)} would be written twice`);
      throw error;
    }
  };

  /** Makes `folder` (and its parents) under `into`, each once, with the data directory's folder mode. */
  const makeFolder = (folder: string) => {
    const steps = folder.split('/');
    for (let depth = 1; depth <= steps.length; depth += 1) {
      const path = steps.slice(0, depth).join('/');
      if (made.has(path)) continue;
      refuseCollision(path, () => makeFolderWithMode(join(into, path)));
      made.add(path);
    }
  };

  /** Why `entry` may not be taken, or undefined when it may. */
  const problemOf = (entry: ReadEntry, path: string): string | undefined => {
    const name = quoted(entry.path);
    if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return `entry ${name} has an absolute path`;
    if (path.split('/').includes('..')) return `entry ${name} points outside the archive (..)`;
    if (!hasPlainSteps(path))
      return `entry ${name} has a path this program does not accept (too long, or with an empty, ".", "\\" or ":" step)`;
    if (entry.type === 'Directory') {
      if (manifest === undefined) throw MANIFEST_NOT_FIRST;
      if (!folders.has(path)) return `entry ${name} is a folder that ${MANIFEST_FILE} does not list a file in`;
      if (made.has(path)) return `entry ${name} is in the archive twice`;
      return undefined;
    }
    if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'ContiguousFile') {
      return `entry ${name} is ${KIND_OF_ENTRY[entry.type] ?? `of type ${entry.type}`}; a backup holds only files and folders`;
    }
    if (path === MANIFEST_FILE) {
      if (manifestSeen) return `entry ${name} is in the archive twice`;
      if (entry.size > MAX_MANIFEST_BYTES) return `its ${MANIFEST_FILE} is ${entry.size} bytes, more than ${MAX_MANIFEST_BYTES}`;
      return undefined;
    }
    if (manifest === undefined) throw MANIFEST_NOT_FIRST;
    const expected = listed.get(path);
    if (done.has(path)) return `entry ${name} is in the archive twice`;
    if (expected === undefined) return `entry ${name} is not listed in ${MANIFEST_FILE}`;
    if (entry.size !== expected.size) return `entry ${name} holds ${entry.size} bytes; ${MANIFEST_FILE} says ${expected.size}`;
    return undefined;
  };

  /** Writes all of `bytes` to `file`. */
  const writeAll = (file: EntryBeingWritten, bytes: Buffer) => {
    for (let offset = 0; offset < bytes.length;) offset += writeSync(file.fd, bytes, offset);
  };

  /**
   * Checks the chunk held of `file` against its SHA-256 and writes it; a chunk that differs is
   * refused before a byte of it is written, and the file made for the entry is removed.
   */
  const flushChunk = (file: EntryBeingWritten) => {
    const from = file.chunkIndex * CHUNK_BYTES;
    if (file.chunkHash.digest('hex') !== file.chunkHashes![file.chunkIndex]) {
      closeSync(file.fd);
      unlinkSync(join(into, file.path));
      current = undefined;
      refuse(
        `it is damaged or was altered: ${file.path} does not match its SHA-256 in ${MANIFEST_FILE} (its bytes ${from} to ${from + file.pendingBytes - 1} differ; nothing of them was written)`,
      );
      return;
    }
    for (const bytes of file.pending) writeAll(file, bytes);
    file.pending = [];
    file.pendingBytes = 0;
    file.chunkHash = createHash('sha256');
    file.chunkIndex += 1;
  };

  /** Takes `data` of the entry being written: into its chunks, each written once checked, or straight to the file. */
  const takeData = (file: EntryBeingWritten, data: Buffer) => {
    file.written += data.length;
    file.hash.update(data);
    if (file.chunkHashes === undefined) return writeAll(file, data);
    for (let offset = 0; offset < data.length && current === file;) {
      // Copied: the parser may reuse the memory of what it hands on.
      const piece = Buffer.from(data.subarray(offset, offset + CHUNK_BYTES - file.pendingBytes));
      file.pending.push(piece);
      file.pendingBytes += piece.length;
      file.chunkHash.update(piece);
      offset += piece.length;
      if (file.pendingBytes === CHUNK_BYTES) flushChunk(file);
    }
  };

  const finishFile = (file: EntryBeingWritten) => {
    if (file.chunkHashes !== undefined && file.pendingBytes > 0) flushChunk(file);
    // A chunk that differed has closed and removed the file already.
    if (current !== file) return;
    closeSync(file.fd);
    current = undefined;
    if (file.written !== file.expected.size || file.hash.digest('hex') !== file.expected.sha256) {
      refuse(`it is damaged or was altered: ${file.path} does not match its SHA-256 in ${MANIFEST_FILE}`);
    }
    done.add(file.path);
    progress?.advance(0, 1);
  };

  const takeEntry = (entry: ReadEntry) => {
    if (failure !== undefined) return entry.resume();
    const path = entryPath(entry);
    // The folder itself, as `tar czf FILE -C folder .` stores it.
    if (entry.type === 'Directory' && (path === '' || path === '.')) return entry.resume();
    const problem = problemOf(entry, path);
    if (problem !== undefined) {
      refuse(problem);
      return entry.resume();
    }
    if (entry.type === 'Directory') {
      makeFolder(path);
      return entry.resume();
    }
    if (path === MANIFEST_FILE) {
      manifestSeen = true;
      // Read beforehand (findManifest): the same bytes, skipped.
      if (manifest !== undefined) return entry.resume();
      const bytes = manifestBytesOf(entry);
      entry.on('end', () => {
        try {
          accept(parseManifest(bytes.text()));
        } catch (error) {
          failure ??= error;
        }
      });
      return;
    }
    const expected = listed.get(path)!;
    const folder = path.split('/').slice(0, -1).join('/');
    if (folder !== '') makeFolder(folder);
    const fd = refuseCollision(path, () =>
      openSync(join(into, path), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, SHARED_FILE_MODE),
    );
    // Whatever the umask, exactly 0660 (Windows keeps its access lists).
    shareNewFile(fd);
    const writing: EntryBeingWritten = {
      path,
      fd,
      hash: createHash('sha256'),
      expected,
      written: 0,
      chunkHashes: expected.chunks ?? (expected.size <= CHUNK_BYTES ? [expected.sha256] : undefined),
      pending: [],
      pendingBytes: 0,
      chunkHash: createHash('sha256'),
      chunkIndex: 0,
    };
    current = writing;
    entry.on('data', (chunk: Buffer) => {
      if (failure === undefined && current === writing) takeData(writing, chunk);
    });
    entry.on('end', () => {
      if (current === writing) finishFile(writing);
    });
  };

  const parser = new Parser({ strict: true, maxMetaEntrySize: 64 * 1024 });
  parser.on('entry', (entry: ReadEntry) => {
    try {
      takeEntry(entry);
    } catch (error) {
      failure ??= error;
      entry.resume();
    }
  });
  parser.on('ignoredEntry', (entry: ReadEntry) =>
    refuse(`entry ${quoted(entry.path)} is of a kind this program does not restore (${entry.type})`),
  );
  parser.on('error', (error: Error) => refuse(`it is not a readable tar archive (${error.message})`));

  try {
    await feedArchive(file, parser, () => failure !== undefined, progress);
  } catch (error) {
    failure ??= error;
  } finally {
    if (current !== undefined) closeSync(current.fd);
  }
  if (failure === undefined && manifest === undefined) refuse(`the archive has no readable ${MANIFEST_FILE}: it is not a clinic backup`);
  if (failure === undefined && current !== undefined) refuse(`it ends inside ${current.path}`);
  if (failure !== undefined) throw failure;
  const missing = manifest!.entries.filter((entry) => !done.has(entry.path)).map((entry) => `${entry.path} is missing`);
  if (missing.length > 0) throw errors.backupDamaged(`it is damaged or was altered: ${fewOf(missing)}`);
  return manifest!;
}

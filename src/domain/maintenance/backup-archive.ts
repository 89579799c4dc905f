import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { create, list, type ReadEntry, type WriteEntry } from 'tar';
import { DATABASE_FILE } from '../../db/open-database.js';
import { errors } from '../errors.js';
import type { FileDigest } from './data-dir.js';

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
}

/** manifest.json. */
export interface BackupManifest {
  format: typeof FORMAT;
  format_version: typeof FORMAT_VERSION;
  created_at: string;
  program_version: string;
  schema_version: number;
  entries: ManifestEntry[];
}

/** Builds the manifest of a new archive. */
export function buildManifest(fields: Omit<BackupManifest, 'format' | 'format_version'>): BackupManifest {
  return { format: FORMAT, format_version: FORMAT_VERSION, ...fields };
}

/** Whether `path` may be in an archive: the database, or a file under documents/ with no `.`/`..` step. */
export function isArchivablePath(path: string): boolean {
  if (path === DATABASE_FILE) return true;
  const steps = path.split('/');
  return steps.length >= 2 && steps[0] === 'documents' && steps.slice(1).every((step) => step !== '' && step !== '.' && step !== '..');
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
  for (const entry of manifest.entries) {
    const valid =
      typeof entry?.path === 'string' &&
      isArchivablePath(entry.path) &&
      Number.isSafeInteger(entry.size) &&
      /^[0-9a-f]{64}$/.test(String(entry.sha256));
    if (!valid) throw errors.backupDamaged(`${MANIFEST_FILE} lists an entry this program does not accept: ${JSON.stringify(entry)}`);
  }
  if (!manifest.entries.some((entry) => entry.path === DATABASE_FILE)) throw errors.backupDamaged(`it holds no ${DATABASE_FILE}`);
  return manifest as BackupManifest;
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
 * Writes the gzipped tar `file` (mode 0600: it holds patient data): the manifest first, then
 * each entry read from its source path on disk.
 */
export async function writeArchive(file: string, manifestSource: string, sources: ReadonlyMap<string, string>): Promise<void> {
  // Keyed as tar names what it reads: on Windows, Z:\x\y is Z:/x/y there (entry.absolute).
  const key = (source: string) => resolve(source).replace(/\\/g, '/');
  const archivePathOf = new Map<string, string>([[key(manifestSource), MANIFEST_FILE]]);
  for (const [path, source] of sources) archivePathOf.set(key(source), path);
  await create(
    {
      file,
      gzip: true,
      mode: 0o600,
      // No owner names or ids: the archive is restored on another PC, by another user.
      portable: true,
      noDirRecurse: true,
      cwd: '/',
      // Sources are absolute paths from two folders (the staging copy and the data directory);
      // each is stored under its archive name instead.
      onWriteEntry(entry: WriteEntry) {
        entry.path = archivePathOf.get(key(entry.absolute)) ?? entry.path;
      },
      onwarn: () => {},
    },
    [manifestSource, ...sources.values()],
  );
}

/** Whether an archive holds a manifest, and the size and SHA-256 of every other file entry, read without extracting it. */
export async function readArchive(file: string): Promise<{ hasManifest: boolean; files: Map<string, FileDigest> }> {
  const files = new Map<string, FileDigest>();
  let hasManifest = false;
  await list({
    file,
    strict: true,
    onReadEntry(entry: ReadEntry) {
      const path = entry.path;
      if (entry.type !== 'File') return;
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
  return { hasManifest, files };
}

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { craftArchive, entriesOf, populatedDataDir, type CraftedEntry } from '../../helpers/backup-fixtures.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { programPath, runClinic, unwrapped } from '../../helpers/run-cli.js';

const tempDir = useDataDirs();
const MiB = 1024 * 1024;

interface Manifest {
  entries: { path: string; size: number; sha256: string; chunks?: string[] }[];
  chunk_size?: number;
}

const manifestOf = (entry: CraftedEntry) => JSON.parse(entry.body!.toString('utf8')) as Manifest;
const asEntry = (manifest: Manifest): CraftedEntry => ({ path: 'manifest.json', body: Buffer.from(JSON.stringify(manifest)) });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Issue 39, L6: restore read a manifest of any length (255,000 entries took 318 MB and answered
 * with 7.9 MB of text), and wrote an entry whole (1 GiB) before its SHA-256 could refuse it. Now
 * a manifest lists at most 100,000 files in at most 24 MiB, a refusal names a few problems and
 * counts the rest, and a backup gives the SHA-256 of each MiB of a larger file, which restore
 * checks before it writes that MiB.
 */
describe('restore within bounds', { timeout: 180_000 }, () => {
  let entries: CraftedEntry[];
  let manifest: CraftedEntry;
  let document: CraftedEntry;

  before(async () => {
    const { dataDir } = populatedDataDir(tempDir());
    const db = openDatabase(dataDir);
    try {
      // A document of 3.5 MiB: four chunks, the last one short.
      const patientId = (db.prepare('SELECT id FROM patients LIMIT 1').get() as { id: string }).id;
      addDocument(db, dataDir, patientId, randomBytes(3.5 * MiB));
    } finally {
      db.close();
    }
    const file = join(tempDir(), 'real.tar.gz');
    assert.equal((await runClinic(['backup', programPath(file), '--data', dataDir])).code, 0);
    entries = await entriesOf(file);
    manifest = entries[0]!;
    document = entries.find((entry) => entry.body!.length === 3.5 * MiB)!;
  });

  /** `clinic restore` of the archive made of `archive` into a new directory: its refusal, and the directory left empty. */
  async function refusalOf(archive: CraftedEntry[]): Promise<string> {
    const file = join(tempDir(), 'hostile.tar.gz');
    await craftArchive(file, archive);
    const target = tempDir();
    const result = await runClinic(['restore', programPath(file), '--data', target]);
    assert.equal(result.code, 1, result.stdout);
    assert.deepEqual(readdirSync(target), [], 'nothing is left behind');
    return unwrapped(result.stderr);
  }

  it('gives the SHA-256 of each MiB of a file larger than one, and such a backup restores', async () => {
    const listed = manifestOf(manifest);
    assert.equal(listed.chunk_size, MiB);
    const entry = listed.entries.find((e) => e.path === document.path)!;
    assert.deepEqual(
      entry.chunks,
      [0, 1, 2, 3].map((i) => sha256(document.body!.subarray(i * MiB, (i + 1) * MiB))),
    );
    assert.ok(
      listed.entries.filter((e) => e.size <= MiB).every((e) => e.chunks === undefined),
      'a smaller file has none',
    );
    const file = join(tempDir(), 'again.tar.gz');
    await craftArchive(file, entries);
    assert.equal((await runClinic(['restore', programPath(file), '--data', tempDir()])).code, 0);
  });

  it('refuses a file whose first MiB differs from its SHA-256 before writing a byte of it, and the file it began', async () => {
    const changed = Buffer.from(document.body!);
    changed[10] = changed[10]! ^ 0xff;
    const stderr = await refusalOf([manifest, ...entries.slice(1).map((e) => (e === document ? { path: e.path, body: changed } : e))]);
    assert.match(
      stderr,
      new RegExp(
        `^error: BACKUP_DAMAGED: .*${document.path} does not match its SHA-256 in manifest\\.json \\(its bytes 0 to 1048575 differ; nothing of them was written\\)`,
        'm',
      ),
    );
  });

  it('refuses a later MiB as soon as it is read, the MiBs before it being sound', async () => {
    const changed = Buffer.from(document.body!);
    changed[3 * MiB + 7] = changed[3 * MiB + 7]! ^ 0xff;
    const stderr = await refusalOf([manifest, ...entries.slice(1).map((e) => (e === document ? { path: e.path, body: changed } : e))]);
    assert.match(stderr, /its bytes 3145728 to 3670015 differ; nothing of them was written/);
  });

  it('refuses chunks that do not fit the file, and a chunk size it does not read', async () => {
    const wrongCount = manifestOf(manifest);
    wrongCount.entries.find((e) => e.path === document.path)!.chunks!.pop();
    assert.match(await refusalOf([asEntry(wrongCount), ...entries.slice(1)]), /manifest\.json lists an entry this program does not accept/);
    const otherSize = { ...manifestOf(manifest), chunk_size: 4096 };
    assert.match(
      await refusalOf([asEntry(otherSize), ...entries.slice(1)]),
      /manifest\.json gives chunks of 4096 bytes; this program reads chunks of 1048576/,
    );
  });

  it('refuses a manifest of more than 100,000 files at once, in a line', async () => {
    const many = manifestOf(manifest);
    for (let i = 0; many.entries.length <= 100_000; i += 1) {
      many.entries.push({ path: `documents/p/${String(i).padStart(6, '0')}`, size: 1, sha256: 'a'.repeat(64) });
    }
    const stderr = await refusalOf([asEntry(many), ...entries.slice(1)]);
    assert.match(stderr, /manifest\.json lists 100001 files, more than the 100000 a backup holds/);
    assert.ok(stderr.length < 1000, `${stderr.length} characters`);
  });

  it('names a few missing files and counts the rest', async () => {
    const missing = manifestOf(manifest);
    for (let i = 0; i < 5000; i += 1)
      missing.entries.push({ path: `documents/p/${String(i).padStart(6, '0')}`, size: 1, sha256: 'a'.repeat(64) });
    const stderr = await refusalOf([asEntry(missing), ...entries.slice(1)]);
    assert.match(
      stderr,
      /documents\/p\/000000 is missing; documents\/p\/000001 is missing; documents\/p\/000002 is missing; and 4997 more/,
    );
    assert.ok(stderr.length < 1000, `${stderr.length} characters`);
  });
});

// What a hostile backup archive costs `clinic restore`: peak memory (RSS, by /usr/bin/time),
// time, and bytes left on disk, for an unlisted 1 GiB entry and gzip bombs. Issue 25: restore
// must stay under 300 MB of memory for any archive and write no more than the manifest declares.
// Issue 39 (L6): a manifest of 255,000 entries, and a document whose first MiB is false.
//   node --import tsx bench/restore-bounds.ts
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { craftArchive, entriesOf, populatedDataDir, type CraftedEntry } from '../test/helpers/backup-fixtures.js';

const GiB = 1024 ** 3;
const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'clinic-restore-bounds-'));
const clinic = (args: string[]) =>
  spawnSync('/usr/bin/time', ['-f', '%M %e', process.execPath, '--import', 'tsx', 'src/main.ts', ...args], {
    maxBuffer: 256 * 1024 * 1024,
  });

/** Bytes of every file under `dir`. */
const bytesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((total, entry) => total + statSync(join(entry.parentPath, entry.name)).size, 0);

try {
  const { dataDir } = populatedDataDir(join(work, 'data'));
  const real = join(work, 'real.tar.gz');
  if (clinic(['backup', real, '--data', dataDir]).status !== 0) throw new Error('backup failed');
  const entries = await entriesOf(real);
  const [manifest, ...rest] = entries as [CraftedEntry, ...CraftedEntry[]];
  const document = rest.find((entry) => entry.path.startsWith('documents/'))!;
  /** The manifest with one entry's size changed (its SHA-256 kept, so the bytes cannot match). */
  const withSize = (entry: CraftedEntry, path: string, size: number): CraftedEntry => {
    const parsed = JSON.parse(entry.body!.toString('utf8')) as { entries: { path: string; size: number }[] };
    for (const listed of parsed.entries) if (listed.path === path) listed.size = size;
    return { path: entry.path, body: Buffer.from(JSON.stringify(parsed)) };
  };
  /** The manifest with one entry listed as `size` zeros, each MiB's SHA-256 given (the first of them false), as restore checks them while it writes. */
  const withChunks = (entry: CraftedEntry, path: string, size: number): CraftedEntry => {
    const parsed = JSON.parse(entry.body!.toString('utf8')) as { entries: Record<string, unknown>[] };
    const zeros = createHash('sha256')
      .update(Buffer.alloc(1024 * 1024))
      .digest('hex');
    for (const listed of parsed.entries) {
      if (listed.path !== path) continue;
      listed.size = size;
      listed.chunks = Array.from({ length: size / (1024 * 1024) }, (_, i) => (i === 0 ? '0'.repeat(64) : zeros));
    }
    return { path: entry.path, body: Buffer.from(JSON.stringify({ ...parsed, chunk_size: 1024 * 1024 })) };
  };
  /** The manifest listing `count` documents besides what it holds (none of them in the archive). */
  const manyEntries = (entry: CraftedEntry, count: number, fullPaths = false): CraftedEntry => {
    const parsed = JSON.parse(entry.body!.toString('utf8')) as { entries: unknown[] };
    const sha256 = 'a'.repeat(64);
    for (let i = 0; i < count; i += 1) {
      const path = fullPaths ? `documents/${randomUUID()}/${randomUUID()}` : `documents/p/${String(i).padStart(6, '0')}`;
      parsed.entries.push({ path, size: 1, sha256 });
    }
    // As backup writes it: indented, one field a line.
    return { path: entry.path, body: Buffer.from(JSON.stringify(parsed, null, fullPaths ? 2 : 0)) };
  };
  const cases: [string, CraftedEntry[]][] = [
    ['an unlisted 1 GiB entry after the manifest', [manifest, { path: `${document.path}-x`, zeros: GiB }, ...rest]],
    ['an unlisted 1 GiB entry at the end', [...entries, { path: `${document.path}-x`, zeros: GiB }]],
    ['an unlisted 1 GiB entry before the manifest (read twice)', [{ path: `${document.path}-x`, zeros: GiB }, ...entries]],
    [
      'a listed document whose header says 4 GiB',
      [manifest, ...rest.map((e) => (e === document ? { ...e, size: 4 * GiB, zeros: 4 * GiB - e.body!.length } : e))],
    ],
    ['4 GiB of zero blocks after the end of the tar', entries],
    [
      'a document listed as 1 GiB, written and then refused (SHA-256)',
      [withSize(manifest, document.path, GiB), ...rest.map((e) => (e === document ? { path: e.path, zeros: GiB } : e))],
    ],
    [
      'a document listed as 1 GiB with the SHA-256 of each MiB, the first false',
      [withChunks(manifest, document.path, GiB), ...rest.map((e) => (e === document ? { path: e.path, zeros: GiB } : e))],
    ],
    ['a manifest of 255,000 entries (29 MB)', [manyEntries(manifest, 255_000), ...rest]],
    ['a manifest at the bounds: 100,000 entries of full-length paths', [manyEntries(manifest, 100_000 - rest.length - 1, true), ...rest]],
  ];
  console.log('| archive | archive size | exit | stderr | stderr bytes | peak RSS | time | bytes left |');
  console.log('|---|---|---|---|---|---|---|---|');
  // BENCH_CASES=words runs only the cases whose title holds them.
  for (const [title, archive] of cases.filter(([title]) => title.includes(process.env.BENCH_CASES ?? ''))) {
    const file = join(work, 'hostile.tar.gz');
    rmSync(file, { force: true });
    await craftArchive(file, archive, title.startsWith('4 GiB of zero') ? 4 * GiB : 0);
    const restored = join(work, 'restored');
    rmSync(restored, { recursive: true, force: true });
    mkdirSync(restored);
    const run = clinic(['restore', file, '--data', restored]);
    const lines = run.stderr.toString().trim().split('\n');
    const [rssKb, seconds] = (lines.pop() ?? '').split(' ');
    const refusal = (lines[0] ?? '').slice(0, 90);
    console.log(
      `| ${title} | ${(statSync(file).size / 1e6).toFixed(1)} MB | ${run.status} | ${refusal} | ${run.stderr.length} | ${(Number(rssKb) / 1024).toFixed(0)} MB | ${seconds} s | ${bytesUnder(restored)} |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

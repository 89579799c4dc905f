import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { craftArchive, entriesOf, populatedDataDir, type CraftedEntry } from '../../helpers/backup-fixtures.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { nobodySkipReason, programPlatform, runAsNobody, runClinic } from '../../helpers/run-cli.js';

const tempDir = useDataDirs();

/** Every path under `dir` with its stat, folders included. */
function everythingUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => join(entry.parentPath, entry.name));
}

describe('clinic restore of a hostile archive', { timeout: 180_000 }, () => {
  let entries: CraftedEntry[] = [];
  let manifest: CraftedEntry;
  let database: CraftedEntry;
  let document: CraftedEntry;
  let outside: string;

  before(async () => {
    const { dataDir } = populatedDataDir(tempDir());
    const file = join(tempDir(), 'real.tar.gz');
    assert.equal((await runClinic(['backup', file, '--data', dataDir])).code, 0);
    entries = await entriesOf(file);
    [manifest, database] = entries as [CraftedEntry, CraftedEntry];
    document = entries.find((entry) => entry.path.startsWith('documents/'))!;
    outside = tempDir();
  });

  const others = () => entries.filter((entry) => entry !== manifest);
  const replacing = (entry: CraftedEntry, by: CraftedEntry) => [manifest, ...others().map((e) => (e === entry ? by : e))];
  const scenarios: { title: string; archive: () => CraftedEntry[]; refusal: () => RegExp }[] = [
    {
      title: 'an unlisted 64 MiB entry, refused at its header',
      archive: () => [manifest, { path: `${document.path}-extra`, zeros: 64 * 1024 * 1024 }, ...others()],
      refusal: () => /entry ".*-extra" is not listed in manifest\.json/,
    },
    {
      title: 'a symbolic link in place of a document',
      archive: () => replacing(document, { path: document.path, type: 'SymbolicLink', linkpath: '/etc/passwd' }),
      refusal: () => /entry ".*" is a symbolic link; a backup holds only files and folders/,
    },
    {
      title: 'a hard link',
      archive: () => replacing(document, { path: document.path, type: 'Link', linkpath: 'clinic.db' }),
      refusal: () => /is a hard link; a backup holds only files and folders/,
    },
    {
      title: 'a device',
      archive: () => replacing(document, { path: document.path, type: 'CharacterDevice' }),
      refusal: () => /is a device; a backup holds only files and folders/,
    },
    {
      title: 'a FIFO',
      archive: () => replacing(document, { path: document.path, type: 'FIFO' }),
      refusal: () => /is a FIFO; a backup holds only files and folders/,
    },
    {
      title: 'a ../ path',
      archive: () => [manifest, { path: `../${'x'.repeat(8)}-escape`, body: Buffer.from('out') }, ...others()],
      refusal: () => /entry "\.\.\/x+-escape" points outside the archive/,
    },
    {
      title: 'an absolute path',
      archive: () => [manifest, { path: join(outside, 'absolute'), body: Buffer.from('out') }, ...others()],
      refusal: () => /entry ".*absolute" has an absolute path/,
    },
    {
      title: 'a path too long to be a document',
      archive: () => [manifest, { path: `documents/${'a/'.repeat(600)}deep`, body: Buffer.from('deep') }, ...others()],
      refusal: () => /has a path this program does not accept \(too long/,
    },
    {
      title: 'a path deeper than a document',
      archive: () => [manifest, { path: `${document.path}/deeper/still`, body: Buffer.from('deep') }, ...others()],
      refusal: () => /is not listed in manifest\.json/,
    },
    {
      title: 'a second clinic.db',
      archive: () => [...entries, { path: 'clinic.db', body: database.body }],
      refusal: () => /entry "clinic\.db" is in the archive twice/,
    },
    {
      title: 'a document larger than the manifest says',
      archive: () => replacing(document, { path: document.path, body: Buffer.concat([document.body!, Buffer.from('more')]) }),
      refusal: () => new RegExp(`holds ${document.body!.length + 4} bytes; manifest\\.json says ${document.body!.length}`),
    },
    {
      title: 'an unlisted entry before manifest.json',
      archive: () => [{ path: `${document.path}-early`, zeros: 1024 * 1024 }, ...entries],
      refusal: () => /entry ".*-early" is not listed in manifest\.json/,
    },
    {
      title: 'a manifest that lists a file as the folder of another (documents/x and documents/x/y)',
      archive: () => {
        const listed = JSON.parse(manifest.body!.toString('utf8')) as { entries: object[] };
        const file = Buffer.from('a file');
        const inside = Buffer.from('a file inside it');
        const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');
        listed.entries.push(
          { path: 'documents/x', size: file.length, sha256: sha256(file) },
          { path: 'documents/x/y', size: inside.length, sha256: sha256(inside) },
        );
        return [
          { path: 'manifest.json', body: Buffer.from(JSON.stringify(listed)) },
          ...others(),
          { path: 'documents/x', body: file },
          { path: 'documents/x/y', body: inside },
        ];
      },
      refusal: () => /lists "documents\/x" both as a file and as a folder/,
    },
    {
      title: 'a manifest.json without clinic.db',
      archive: () => [{ path: 'manifest.json', body: Buffer.from('{"format":"clinic-backup","format_version":1,"entries":[]}') }],
      refusal: () => /it holds no clinic\.db/,
    },
  ];

  for (const { title, archive, refusal } of scenarios) {
    it(`refuses ${title} with BACKUP_DAMAGED, writing nothing`, async () => {
      const work = tempDir();
      const file = join(work, 'hostile.tar.gz');
      await craftArchive(file, archive());
      const restored = join(work, 'restored');
      const result = await runClinic(['restore', file, '--data', restored]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /^error: BACKUP_DAMAGED: The backup cannot be used: /m);
      // Wrapped at 100 columns (issue 42), read as one line.
      assert.match(result.stderr.replace(/\n {2,}/g, ' '), refusal());
      assert.doesNotMatch(result.stderr, /INTERNAL|\n\s+at /);
      assert.deepEqual(readdirSync(restored), []);
      assert.deepEqual(readdirSync(work).sort(), ['hostile.tar.gz', 'restored']);
      assert.deepEqual(readdirSync(outside), []);
    });
  }

  it(
    'refuses a backup file the user restoring may not read with FILE_UNREADABLE naming it, not as damaged (the process ended on an unhandled EACCES, then said BACKUP_DAMAGED)',
    { skip: nobodySkipReason },
    async () => {
      const work = tempDir();
      chmodSync(work, 0o777);
      const file = join(work, 'unreadable.tar.gz');
      await craftArchive(file, entries);
      chmodSync(file, 0o000);
      const restored = join(work, 'restored');
      const result = await runAsNobody(['restore', file, '--data', restored]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr.replace(/\n {2,}/g, ' '),
        /^error: FILE_UNREADABLE: .*unreadable\.tar\.gz cannot be read: the user running clinic may not read it \(EACCES\)/m,
      );
      assert.doesNotMatch(result.stderr, /INTERNAL|BACKUP_DAMAGED|\n\s+at /);
      assert.equal(existsSync(restored), false, 'nothing is made for an archive that cannot be read');
    },
  );

  it('refuses a file that is no gzip, and one cut short, with BACKUP_DAMAGED', async () => {
    const work = tempDir();
    const whole = join(work, 'whole.tar.gz');
    await craftArchive(whole, entries);
    const cut = readFileSync(whole);
    writeFileSync(join(work, 'cut.tar.gz'), cut.subarray(0, Math.floor(cut.length / 2)));
    writeFileSync(join(work, 'text.tar.gz'), 'not an archive at all');
    for (const name of ['cut.tar.gz', 'text.tar.gz']) {
      const restored = join(work, `restored-${name}`);
      const result = await runClinic(['restore', join(work, name), '--data', restored]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr.replace(/\n {2,}/g, ' '),
        /^error: BACKUP_DAMAGED: The backup cannot be used: it (is not a readable|ends inside)/m,
      );
      assert.deepEqual(readdirSync(restored), []);
    }
  });

  it(
    'restores files 0660 and folders 2770 owned by the user restoring, whatever modes and owners the archive names and whatever the umask',
    {
      skip: programPlatform === 'win32' && 'Windows has access lists, not modes',
    },
    async () => {
      const work = tempDir();
      const file = join(work, 'setuid.tar.gz');
      const patientFolder = document.path.split('/').slice(0, 2).join('/');
      const foreign = { mode: 0o6777, uid: 65534, gid: 65534 };
      await craftArchive(file, [
        manifest,
        { path: 'documents/', type: 'Directory', ...foreign },
        { path: `${patientFolder}/`, type: 'Directory', ...foreign },
        ...others().map((entry) => ({ ...entry, ...foreign })),
      ]);
      const restored = join(work, 'restored');
      const result = await runClinic(['restore', file, '--data', restored], { umask: 0o077 });
      assert.equal(result.code, 0, result.stderr);
      // The audit trail's anchor, which the restore begins, is the server's user's alone: 2700 and 0600 (audit-anchor.test.ts).
      for (const path of [restored, ...everythingUnder(restored).filter((path) => !path.includes('audit-anchor'))]) {
        const info = statSync(path);
        assert.equal((info.mode & 0o7777).toString(8), info.isDirectory() ? '2770' : '660', path);
        assert.equal(info.uid, process.getuid!(), path);
        assert.equal(info.gid, process.getgid!(), path);
      }
      assert.equal(existsSync(join(restored, 'clinic.db')), true);
      assert.equal((await runClinic(['check', '--data', restored])).code, 0);
    },
  );

  it(
    'restores an archive repacked by hand with GNU tar (-C folder ., manifest.json anywhere)',
    {
      skip: programPlatform === 'win32' && 'GNU tar is a Linux tool here',
    },
    async () => {
      const work = tempDir();
      const unpacked = join(work, 'unpacked');
      for (const entry of entries) {
        mkdirSync(dirname(join(unpacked, entry.path)), { recursive: true });
        writeFileSync(join(unpacked, entry.path), entry.body!);
      }
      const file = join(work, 'repacked.tar.gz');
      // The system's tar, also where the tests run with a PATH that holds only the program (npm run test:dist).
      const tar = spawnSync('tar', ['czf', file, '-C', unpacked, '.'], { env: { ...process.env, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
      assert.equal(tar.error, undefined, String(tar.error));
      assert.equal(tar.status, 0, tar.stderr.toString());
      const restored = join(work, 'restored');
      const result = await runClinic(['restore', file, '--data', restored]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal((await runClinic(['check', '--data', restored])).code, 0);
    },
  );
});

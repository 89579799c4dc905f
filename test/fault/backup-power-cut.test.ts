import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../../src/db/open-database.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient } from '../helpers/builders.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { lazyFsSkipReason, mountLazyFs } from '../helpers/lazyfs.js';
import { addDocument } from '../helpers/module-tables.js';
import { programPlatform, runClinic, startServeProcess } from '../helpers/run-cli.js';

const tempDir = useDataDirs();

/** The entries of `dir`; none before serve made it. */
const entriesOf = (dir: string) => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []);

/** The schedule's archives in `dir` (files of its names), oldest first. */
const scheduledIn = (dir: string) =>
  entriesOf(dir)
    .filter((entry) => entry.isFile() && /^clinic-\d{4}-\d{2}-\d{2}T\d{6}Z\.tar\.gz$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();

/** Waits until `condition` holds, polling; fails after `ms`. */
async function waitFor(what: string, condition: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * When in a round the power is cut: right after an archive got its name (its bytes must already
 * be on disk), while one is being written (nothing of it may count), or at a random moment.
 */
const CUTS = ['just after an archive is named', 'while an archive is written', 'at a random moment'] as const;

/** clinic.exe under Wine is ended by taskkill, not by a signal to the child this test holds; the power cut is tested on Linux. */
const skip = programPlatform === 'win32' ? 'the power cut is tested with the Linux program' : lazyFsSkipReason;

describe('scheduled backups across power cuts (LazyFS)', { timeout: 180_000, skip }, () => {
  it('leaves every archive of the schedule complete and restorable, or absent', async () => {
    const dataDir = tempDir();
    const db = openDatabase(dataDir);
    try {
      const patient = createPatient(db, buildPatient());
      // Incompressible documents: an archive takes a few hundred milliseconds to write and check.
      for (let i = 0; i < 4; i += 1) addDocument(db, dataDir, patient.id, randomBytes(1024 * 1024));
    } finally {
      db.close();
    }
    const backing = join(tempDir(), 'disk');
    const verified = new Set<string>();
    for (const cut of CUTS) {
      // Each round is a boot: a new mount over what the disk kept.
      const lazyfs = await mountLazyFs(backing);
      try {
        const backupDir = join(lazyfs.mountDir, 'backups');
        const onDisk = join(backing, 'backups');
        const before = new Set(scheduledIn(onDisk));
        const serve = await startServeProcess(['--data', dataDir, '--backup-dir', backupDir, '--backup-every', '1s', '--backup-keep', '3']);
        try {
          // The rename reaches the backing folder at once; the bytes only if they were fsynced.
          await waitFor('a new archive', () => scheduledIn(onDisk).some((name) => !before.has(name)));
          // The later cuts fall once the schedule has made an archive in this boot: how long serve
          // takes to start (seconds on a loaded machine) must not decide whether any survives.
          if (cut === 'just after an archive is named') {
            // Cut at once.
          } else if (cut === 'while an archive is written') {
            await waitFor('a backup in progress', () => entriesOf(onDisk).some((entry) => entry.name.startsWith('.clinic-backup-')));
          } else {
            await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 2000));
          }
        } finally {
          // The power cut: the program dies first, then everything not fsynced is gone.
          serve.child.kill('SIGKILL');
          await serve.exited;
          await lazyfs.clearCache();
        }
      } finally {
        await lazyfs.unmount();
      }
      const archives = scheduledIn(join(backing, 'backups'));
      for (const name of archives.filter((name) => !verified.has(name))) {
        const file = join(backing, 'backups', name);
        assert.ok(statSync(file).size > 0, `${name} (${cut}) is empty`);
        const restoredDir = join(tempDir(), `restored-${name}`);
        const restore = await runClinic(['restore', file, '--data', restoredDir]);
        assert.equal(restore.code, 0, `${name} (${cut}): ${restore.stderr}`);
        assert.match(restore.stdout, /4 document\(s\)/);
        const check = await runClinic(['check', '--data', restoredDir]);
        assert.equal(check.code, 0, `${name} (${cut}): ${check.stdout}${check.stderr}`);
        verified.add(name);
      }
    }
    assert.ok(verified.size >= 2, `only ${verified.size} archive(s) survived to be checked`);
  });
});

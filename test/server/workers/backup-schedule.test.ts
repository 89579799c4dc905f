import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { filesUnder, populatedDataDir, writePatientsMeanwhile } from '../../helpers/backup-fixtures.js';
import { buildPatient } from '../../helpers/builders.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { programPath, programPlatform, runClinic, startServeProcess, STOP_SIGNAL, type ServeProcess } from '../../helpers/run-cli.js';

const tempDir = useDataDirs();

/** The schedule's own names: clinic-YYYY-MM-DDTHHMMSSZ.tar.gz. */
const SCHEDULED = /^clinic-\d{4}-\d{2}-\d{2}T\d{6}Z\.tar\.gz$/;

/** The schedule's archives in `dir`: files of its names (a folder of such a name is none). */
const scheduledIn = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && SCHEDULED.test(entry.name))
    .map((entry) => entry.name)
    .sort();

/** Waits until `condition` holds, polling; fails after `ms`. */
async function waitFor(what: string, condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The JSON lines serve logged as errors (stderr). */
const errorLines = (serve: ServeProcess) =>
  serve
    .output()
    .stderr.split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function stop(serve: ServeProcess): Promise<void> {
  serve.child.kill(STOP_SIGNAL);
  const { code } = await serve.exited;
  assert.equal(code, 0, serve.output().stderr);
}

describe('clinic serve --backup-dir', { timeout: 180_000 }, () => {
  it('writes a verified backup at start and on each interval, keeps the newest N and touches nothing else in the folder', async () => {
    const { dataDir } = populatedDataDir(tempDir());
    const backupDir = join(tempDir(), 'backups');
    mkdirSync(backupDir);
    // IT's own files, and names near the schedule's: never counted, never removed.
    const foreign = ['notes.txt', 'clinic-2020-01-01.tar.gz', 'clinic-2020-01-01T000000Z.tar.gz.part'];
    for (const name of foreign) writeFileSync(join(backupDir, name), 'keep me');
    mkdirSync(join(backupDir, 'clinic-2020-01-01T000000Z.tar.gz'));
    // What a backup killed midway leaves: a staging folder of a process that is gone.
    mkdirSync(join(backupDir, '.clinic-backup-999999999-abcdef'));

    const serve = await startServeProcess(['--data', dataDir, '--backup-dir', backupDir, '--backup-every', '1s', '--backup-keep', '2']);
    try {
      const started = serve.logLines.find((line) => line.event === 'backups');
      assert.equal(started?.backup_dir, programPath(backupDir));
      assert.equal(started?.every_seconds, 1);
      assert.equal(started?.keep, 2);
      await waitFor('four backups', () => serve.logLines.filter((line) => line.event === 'backup_written').length >= 4);
      // The API keeps answering meanwhile.
      assert.equal((await fetch(`${serve.baseUrl}/openapi.json`)).status, 200);
    } finally {
      await stop(serve);
    }
    const written = serve.logLines.filter((line) => line.event === 'backup_written');
    assert.ok(written.every((line) => line.documents === 2 && Number(line.bytes) > 0));
    // Issue 42, 11: each backup is said as it starts too, naming the file it then writes.
    const begun = serve.logLines.filter((line) => line.event === 'backup_started').map((line) => line.file);
    for (const line of written) assert.ok(begun.includes(line.file), `no backup_started for ${String(line.file)}`);
    assert.ok(written.some((line) => (line.removed as string[]).length > 0));
    const kept = scheduledIn(backupDir);
    assert.equal(kept.length, 2, kept.join(', '));
    // The newest two, by the time in their names.
    assert.deepEqual(
      kept,
      written
        .slice(-2)
        .map((line) => String(line.file).split(/[\\/]/).at(-1))
        .sort(),
    );
    assert.deepEqual(readdirSync(backupDir).sort(), [...kept, ...foreign, 'clinic-2020-01-01T000000Z.tar.gz'].sort());
    assert.deepEqual(errorLines(serve), []);
    for (const name of kept) {
      const restoredDir = join(tempDir(), `restored-${name}`);
      const restore = await runClinic(['restore', join(backupDir, name), '--data', restoredDir]);
      assert.equal(restore.code, 0, restore.stderr);
      assert.deepEqual(filesUnder(restoredDir), filesUnder(dataDir));
      assert.equal((await runClinic(['check', '--data', restoredDir])).code, 0);
    }
  });

  it('copies a database of several steps as one snapshot while the server writes', async () => {
    const { dataDir, key } = populatedDataDir(tempDir());
    const db = openDatabase(dataDir);
    try {
      // About 3 MB: the scheduled copy takes 1 MiB per step, so other writes land between steps.
      db.transaction(() => {
        for (let i = 0; i < 4000; i += 1) createPatient(db, buildPatient({ last_name: `Filler ${i}` }));
      })();
    } finally {
      db.close();
    }
    const backupDir = join(tempDir(), 'backups');
    const serve = await startServeProcess(['--data', dataDir, '--backup-dir', backupDir, '--backup-every', '1s', '--backup-keep', '3']);
    const writer = writePatientsMeanwhile(serve.baseUrl, key);
    try {
      await waitFor('three backups', () => serve.logLines.filter((line) => line.event === 'backup_written').length >= 3);
    } finally {
      await writer.stop();
      await stop(serve);
    }
    const { written } = writer;
    assert.ok(written > 0);
    for (const name of scheduledIn(backupDir)) {
      const restoredDir = join(tempDir(), `restored-${name}`);
      assert.equal((await runClinic(['restore', join(backupDir, name), '--data', restoredDir])).code, 0);
      assert.equal((await runClinic(['check', '--data', restoredDir])).code, 0);
      const restored = openDatabase(restoredDir);
      try {
        const { n } = restored.prepare<[], { n: number }>('SELECT count(*) AS n FROM patients').get() ?? { n: 0 };
        assert.ok(n >= 4002 && n <= 4002 + written, `${name}: ${n} patients, ${written} written meanwhile`);
      } finally {
        restored.close();
      }
    }
  });

  it('after a restart waits for the interval from the newest backup instead of writing one at once', async () => {
    const dataDir = tempDir();
    const backupDir = join(tempDir(), 'nested', 'backups');
    const args = ['--data', dataDir, '--backup-dir', backupDir, '--backup-every', '1h'];
    const first = await startServeProcess(args);
    try {
      await waitFor('the first backup', () => first.logLines.some((line) => line.event === 'backup_written'));
    } finally {
      await stop(first);
    }
    const [name] = scheduledIn(backupDir);
    assert.ok(name !== undefined);
    const second = await startServeProcess(args);
    try {
      const due = Date.parse(String(second.logLines.find((line) => line.event === 'backups')?.next_due_at));
      assert.ok(due - Date.now() > 59 * 60_000, `next backup due ${new Date(due).toISOString()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await stop(second);
    }
    assert.deepEqual(scheduledIn(backupDir), [name]);
    assert.ok(!second.logLines.some((line) => line.event === 'backup_written'));
  });

  it('logs a failing backup folder, retries it, keeps serving, and succeeds once the folder is usable', async () => {
    const dataDir = tempDir();
    const backupDir = join(tempDir(), 'usb');
    writeFileSync(backupDir, 'a file where the folder should be');
    const serve = await startServeProcess(['--data', dataDir, '--backup-dir', backupDir, '--backup-every', '1s']);
    try {
      await waitFor('two failures', () => errorLines(serve).filter((line) => line.event === 'backup_failed').length >= 2);
      const [failure, retry] = errorLines(serve).filter((line) => line.event === 'backup_failed');
      assert.equal(failure?.code, 'BACKUP_FOLDER_UNUSABLE');
      assert.equal(failure?.backup_dir, programPath(backupDir));
      assert.match(
        String(failure?.error),
        programPlatform === 'win32'
          ? /^No backup can be written into .*usb: /
          : /^No backup can be written into .*usb: it is a file, not a folder \(EEXIST\)/,
      );
      assert.equal(failure?.consecutive_failures, 1);
      assert.equal(retry?.consecutive_failures, 2);
      assert.equal((await fetch(`${serve.baseUrl}/openapi.json`)).status, 200);
      rmSync(backupDir);
      await waitFor('a backup', () => serve.logLines.some((line) => line.event === 'backup_written'));
    } finally {
      await stop(serve);
    }
    assert.equal(scheduledIn(backupDir).length >= 1, true);
    assert.doesNotMatch(serve.output().stderr, /INTERNAL/);
  });

  it('on SIGTERM abandons a backup being written and leaves no staging folder', async () => {
    const dataDir = tempDir();
    const db = openDatabase(dataDir);
    try {
      const patient = createPatient(db, buildPatient());
      // Incompressible documents, so that writing and verifying the archive takes a while.
      for (let i = 0; i < 12; i += 1) addDocument(db, dataDir, patient.id, randomBytes(4 * 1024 * 1024));
    } finally {
      db.close();
    }
    const backupDir = join(tempDir(), 'backups');
    const serve = await startServeProcess(['--data', dataDir, '--backup-dir', backupDir]);
    await waitFor('a backup being written', () => {
      try {
        return readdirSync(backupDir).some((name) => name.startsWith('.clinic-backup-'));
      } catch {
        return false;
      }
    });
    const asked = Date.now();
    await stop(serve);
    assert.ok(Date.now() - asked < 5000, `stopped after ${Date.now() - asked} ms`);
    assert.ok(!serve.logLines.some((line) => line.event === 'backup_written'), 'the backup finished before the stop');
    assert.deepEqual(readdirSync(backupDir), []);
    assert.deepEqual(errorLines(serve), []);
  });

  it('refuses bad backup options as usage errors (exit 2)', async () => {
    const dataDir = tempDir();
    const backupDir = join(tempDir(), 'b');
    const cases: { args: string[]; env?: Record<string, string>; message: RegExp }[] = [
      { args: ['--backup-dir', backupDir, '--backup-every', '0s'], message: /--backup-every.*the interval must be at least 1s/ },
      { args: ['--backup-dir', backupDir, '--backup-every', '10x'], message: /--backup-every.*expected a duration such as 24h, 30m/ },
      { args: ['--backup-dir', backupDir, '--backup-every', '367d'], message: /at most 366d/ },
      { args: ['--backup-dir', backupDir, '--backup-keep', '0'], message: /--backup-keep.*expected a whole number from 1/ },
      { args: ['--backup-dir', backupDir, '--backup-keep', '2.5'], message: /--backup-keep.*expected a whole number/ },
      { args: ['--backup-dir', ''], message: /--backup-dir.*expected a folder/ },
      { args: ['--backup-every', '1h'], message: /--backup-every \(or CLINIC_BACKUP_EVERY\) needs --backup-dir DIR/ },
      { args: ['--backup-keep', '3'], message: /--backup-keep \(or CLINIC_BACKUP_KEEP\) needs --backup-dir DIR/ },
      { args: ['--backup-dir', join(dataDir, 'backups')], message: /is inside the data directory/ },
      { args: ['--backup-dir', backupDir], env: { CLINIC_BACKUP_EVERY: 'daily' }, message: /CLINIC_BACKUP_EVERY: expected a duration/ },
      { args: ['--backup-dir', backupDir], env: { CLINIC_BACKUP_KEEP: '-1' }, message: /CLINIC_BACKUP_KEEP: expected a whole number/ },
      { args: [], env: { CLINIC_BACKUP_KEEP: '3' }, message: /needs --backup-dir/ },
    ];
    for (const { args, env, message } of cases) {
      const result = await runClinic(['serve', '--port', '0', '--data', dataDir, ...args], env === undefined ? {} : { env });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      // A message wrapped at 100 columns (issue 42) read as one line.
      assert.match(result.stderr.replace(/\n {2,}/g, ' '), message, args.join(' '));
    }
  });
});

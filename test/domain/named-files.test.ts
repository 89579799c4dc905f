import assert from 'node:assert/strict';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { useDataDirs } from '../helpers/fixtures.js';
import { createPatientWithCli, nobodySkipReason, runAsNobody, runClinic, type CliResult } from '../helpers/run-cli.js';

/**
 * Issue 42, finding 3: every file the desk is given by name, or asked to write, that this user
 * may not read or write is refused by name and reason, with a code: never a stack trace, never
 * "damaged" or "not JSON". Run as uid 65534 (nobody), whom the files are closed to, on a data
 * directory that is nobody's own.
 */

const NOBODY = 65534;
const backupFixture = fileURLToPath(new URL('../fixtures/release-1.2.0/backup.tar.gz', import.meta.url));

/** `chown -R nobody: path`. */
function giveToNobody(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true }))
    chownSync(join(entry.parentPath, entry.name), NOBODY, NOBODY);
}

/** The refusal a person sees: exit 1, `error: CODE: <path> …` naming the reason, and no stack trace or other code. */
function assertRefused(result: CliResult, code: string, path: string, reason: RegExp): void {
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.ok(result.stderr.startsWith(`error: ${code}: ${path} `), result.stderr);
  assert.match(result.stderr.replace(/\n\s+/g, ' '), reason);
  assert.doesNotMatch(result.stderr, /\n\s+at |Unhandled|INTERNAL|STORAGE_FAILED|BACKUP_DAMAGED|JSON/);
}

describe('files the desk names, as a user who may not use them', { skip: nobodySkipReason, timeout: 180_000 }, () => {
  const tempDir = useDataDirs();
  let folder: string;
  let dataDir: string;
  let closed: string;
  const asNobody = (...args: string[]) => runAsNobody([...args, '--data', dataDir]);

  before(async () => {
    folder = tempDir();
    chmodSync(folder, 0o755);
    dataDir = join(folder, 'data');
    assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
    await createPatientWithCli(dataDir);
    giveToNobody(dataDir);
    // root's, closed to everyone else, as a file in another user's home is.
    closed = join(folder, 'closed');
    mkdirSync(closed, { mode: 0o755 });
    for (const [name, text] of [
      ['scan.pdf', '%PDF-1.4 a scan'],
      ['patient.json', '{"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.org", "mobile": "+43 664 7654321"}'],
    ]) {
      writeFileSync(join(closed, name!), text!, { mode: 0o600 });
    }
    cpSync(backupFixture, join(closed, 'backup.tar.gz'));
    chmodSync(join(closed, 'backup.tar.gz'), 0o600);
  });

  it('upload-document --file: FILE_UNREADABLE naming the file, "may not read", nothing stored', async () => {
    const file = join(closed, 'scan.pdf');
    const result = await asNobody('upload-document', '--patient-id', 'P-1', '--file', file);
    assertRefused(result, 'FILE_UNREADABLE', file, /cannot be read: the user running clinic may not read it \(EACCES\)/);
    const list = await runClinic(['document', 'list', 'P-1', '--json', '--data', dataDir]);
    assert.deepEqual(JSON.parse(list.stdout), []);
    assert.deepEqual(existsSync(join(dataDir, 'tmp')) ? readdirSync(join(dataDir, 'tmp')) : [], [], 'no upload left behind');
  });

  it('create-patient --file: FILE_UNREADABLE naming the file, not a JSON or storage error, no patient made', async () => {
    const file = join(closed, 'patient.json');
    const result = await asNobody('create-patient', '--file', file);
    assertRefused(result, 'FILE_UNREADABLE', file, /may not read it \(EACCES\)/);
    const found = await runClinic(['patient', 'find', 'Lovelace', '--json', '--data', dataDir]);
    assert.deepEqual(JSON.parse(found.stdout), []);
  });

  it('restore FILE: FILE_UNREADABLE, not BACKUP_DAMAGED, and no data directory made', async () => {
    const file = join(closed, 'backup.tar.gz');
    const target = join(folder, 'restored');
    chmodSync(folder, 0o777);
    try {
      const result = await runAsNobody(['restore', file, '--data', target]);
      assertRefused(result, 'FILE_UNREADABLE', file, /may not read it \(EACCES\)/);
      assert.equal(existsSync(target), false);
    } finally {
      chmodSync(folder, 0o755);
    }
  });

  it('audit export --force over a file this user may not replace: FILE_UNWRITABLE naming it, the file left as it was', async () => {
    // A folder anyone may write in, with the sticky bit (/tmp's 1777): another user's file there cannot be replaced.
    const shared = join(folder, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const target = join(shared, 'trail.ndjson');
    writeFileSync(target, 'root’s\n');
    const exported = await asNobody('audit', 'export', '--fhir', target, '--force');
    assertRefused(exported, 'FILE_UNWRITABLE', target, /cannot be written: the user running clinic may not write in its folder \(EPERM\)/);
    assert.deepEqual(readdirSync(shared), ['trail.ndjson'], 'no temporary file left');
  });

  it('backup into a folder this user may not write: BACKUP_FOLDER_UNUSABLE naming it', async () => {
    const result = await asNobody('backup', join(closed, 'b.tar.gz'));
    assert.equal(result.code, 1, result.stderr);
    assert.ok(result.stderr.startsWith(`error: BACKUP_FOLDER_UNUSABLE: No backup can be written into ${closed}: `), result.stderr);
    assert.match(result.stderr, /may not write there \(EACCES\)/);
    assert.doesNotMatch(result.stderr, /\n\s+at |INTERNAL/);
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { DATABASE_FILE } from '../../../src/db/data-directory.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { digestFile, listFilesUnder, ownsDatabaseFile, requireExistingDatabase } from '../../../src/domain/maintenance/data-dir.js';
import { AppError } from '../../../src/errors.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';

// The data directory as every command but init and serve meets it (clinic-api-1.0 "Command line":
// `--data DIR`), and the files of it that check and backup read.

const newDir = useDataDirs();
const codeOf = (error: unknown) => (error instanceof AppError ? error.code : error);

/** A data directory with its clinic database, closed again. */
function clinicDir(): string {
  const dataDir = newDir();
  openDatabase(dataDir).close();
  return dataDir;
}

describe('requireExistingDatabase', () => {
  it('refuses a folder without a clinic database (NO_DATABASE), naming the path, and creates nothing there', () => {
    const mistyped = join(newDir(), 'dta');
    const error = thrownBy(() => requireExistingDatabase(mistyped));
    assert.equal(codeOf(error), 'NO_DATABASE');
    assert.ok((error as AppError).message.includes(join(resolve(mistyped), DATABASE_FILE)), (error as AppError).message);
    assert.equal(existsSync(mistyped), false, 'no second, empty clinic is started');
    assert.equal(codeOf(thrownBy(() => requireExistingDatabase(newDir()))), 'NO_DATABASE', 'an empty folder too');
  });

  it('refuses a 0-byte clinic.db as DATABASE_EMPTY and a file given as the folder with its own code, never as a missing database', () => {
    const emptyDatabase = newDir();
    writeFileSync(join(emptyDatabase, DATABASE_FILE), '');
    assert.equal(codeOf(thrownBy(() => requireExistingDatabase(emptyDatabase))), 'DATABASE_EMPTY');
    const file = join(newDir(), 'notes.txt');
    writeFileSync(file, 'not a folder');
    assert.equal(codeOf(thrownBy(() => requireExistingDatabase(file))), 'DATA_DIRECTORY_UNUSABLE');
  });

  it('takes a data directory with its database', () => {
    assert.doesNotThrow(() => requireExistingDatabase(clinicDir()));
  });
});

describe('digestFile', () => {
  it("gives a file's size and lowercase SHA-256, telling each chunk's bytes as it reads", async () => {
    const path = join(newDir(), 'scan.pdf');
    const bytes = Buffer.alloc(200_000, 7);
    writeFileSync(path, bytes);
    let told = 0;
    const digest = await digestFile(path, (n) => (told += n));
    assert.deepEqual(digest, { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    assert.equal(told, bytes.length);
    const empty = join(newDir(), 'empty');
    writeFileSync(empty, '');
    assert.deepEqual(await digestFile(empty), { size: 0, sha256: createHash('sha256').digest('hex') });
  });

  it('never reads through a link planted in place of a file (ELOOP)', async () => {
    const dir = newDir();
    writeFileSync(join(dir, 'secret'), 'elsewhere');
    symlinkSync(join(dir, 'secret'), join(dir, 'document'));
    await assert.rejects(digestFile(join(dir, 'document')), { code: 'ELOOP' });
  });
});

describe('listFilesUnder', () => {
  it('lists the regular files under a folder as sorted relative paths with /, folders and links left out; none for a missing folder', async () => {
    const dir = newDir();
    mkdirSync(join(dir, 'b', 'c'), { recursive: true });
    mkdirSync(join(dir, 'empty'));
    for (const name of ['z.txt', 'a.txt', 'b/c/d.bin', 'b/x']) writeFileSync(join(dir, name), name);
    symlinkSync(join(dir, 'a.txt'), join(dir, 'link'));
    assert.deepEqual(await listFilesUnder(dir), ['a.txt', 'b/c/d.bin', 'b/x', 'z.txt']);
    assert.deepEqual(await listFilesUnder(join(dir, 'missing')), []);
  });
});

describe('ownsDatabaseFile', { skip: process.getuid === undefined && 'no uids on Windows' }, () => {
  it("says whether this user owns the database file: not without one, nor when it is another user's", () => {
    const dataDir = clinicDir();
    assert.equal(ownsDatabaseFile(dataDir), true);
    assert.equal(ownsDatabaseFile(newDir()), false);
    if (process.getuid?.() === 0) {
      chownSync(join(dataDir, DATABASE_FILE), 65534, 65534);
      assert.equal(ownsDatabaseFile(dataDir), false, "the file given to nobody is not root's");
    }
  });
});

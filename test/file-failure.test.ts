// Why a file or folder could not be used, in words a person can act on, ending in the system's code (src/file-failure.ts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileFailure, isSystemError, type FileAttempt } from '../src/file-failure.js';
import { AppError } from '../src/errors.js';
import { thrownBy } from './helpers/thrown.js';

/** An error of a file operation with this errno code, as node:fs throws it. */
const systemError = (code: string, message = `${code}: failed, open '/srv/clinic/data/clinic.db'`): Error =>
  Object.assign(new Error(message), { code, syscall: 'open', path: '/srv/clinic/data/clinic.db' });

const ATTEMPTS: FileAttempt[] = ['read', 'write', 'read and write', 'make folder', 'look up'];

describe('file failures in words', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clinic-file-failure-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('says who may not do what for EACCES and EPERM, by the attempt, with the remedy after a semicolon', () => {
    assert.deepEqual(
      ATTEMPTS.map((attempt) => fileFailure(systemError('EACCES'), attempt)),
      [
        'the user running clinic may not read it (EACCES)',
        'the user running clinic may not write in its folder (EACCES)',
        'this user may not read and write it (EACCES)',
        'the user running clinic may not write there (EACCES)',
        'this user may not look into its folder (EACCES)',
      ],
    );
    assert.equal(
      fileFailure(systemError('EPERM'), 'read', 'give that user read access to it, or copy it where they may'),
      'the user running clinic may not read it (EPERM); give that user read access to it, or copy it where they may',
    );
  });

  it('says what is not there for ENOENT, by the attempt, as a missing file or folder reads', () => {
    const missingFile = thrownBy(() => readFileSync(join(dir, 'letter.pdf')));
    const goneFolder = thrownBy(() => writeFileSync(join(dir, 'gone', 'export.zip'), 'zip'));
    assert.equal(fileFailure(missingFile, 'read'), 'there is no such file (ENOENT)');
    assert.equal(fileFailure(goneFolder, 'write'), 'its folder is gone (ENOENT)');
    assert.deepEqual(
      ATTEMPTS.map((attempt) => fileFailure(systemError('ENOENT'), attempt)),
      [
        'there is no such file (ENOENT)',
        'its folder is gone (ENOENT)',
        'there is no such file or folder (ENOENT)',
        'a folder above it does not exist and cannot be made (ENOENT)',
        'there is no such file (ENOENT)',
      ],
    );
  });

  it('says the disk failed to write for a write and to read for anything else (EIO)', () => {
    assert.deepEqual(
      ATTEMPTS.map((attempt) => fileFailure(systemError('EIO'), attempt)),
      [
        'its disk failed to read it (EIO)',
        'its disk failed to write it (EIO)',
        'its disk failed to read it (EIO)',
        'its disk failed to read it (EIO)',
        'its disk failed to read it (EIO)',
      ],
    );
  });

  it('reads the same whatever was attempted for a path through a file, a loop of links, a folder, a full or read-only disk', () => {
    writeFileSync(join(dir, 'a-file'), 'text');
    mkdirSync(join(dir, 'a-folder'));
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    const real: [string, unknown][] = [
      ['ENOTDIR', thrownBy(() => readFileSync(join(dir, 'a-file', 'inside')))],
      ['ELOOP', thrownBy(() => readFileSync(join(dir, 'loop-a')))],
      ['EISDIR', thrownBy(() => readFileSync(join(dir, 'a-folder')))],
      ['EEXIST', thrownBy(() => mkdirSync(join(dir, 'a-file')))],
    ];
    assert.deepEqual(
      real.map(([code, error]) => [code, fileFailure(error, 'read'), fileFailure(error, 'make folder')]),
      [
        ['ENOTDIR', 'a part of that path is a file, not a folder (ENOTDIR)', 'a part of that path is a file, not a folder (ENOTDIR)'],
        ['ELOOP', 'it is a symbolic link that leads round in a loop (ELOOP)', 'it is a symbolic link that leads round in a loop (ELOOP)'],
        ['EISDIR', 'it is a folder, not a file (EISDIR)', 'it is a folder, not a file (EISDIR)'],
        ['EEXIST', 'it is a file, not a folder (EEXIST)', 'it is a file, not a folder (EEXIST)'],
      ],
    );
    assert.deepEqual(
      ['EROFS', 'ENOSPC', 'EDQUOT'].map((code) => fileFailure(systemError(code), 'write')),
      ['the file system is read-only (EROFS)', 'there is no room left on its disk (ENOSPC)', 'there is no room left on its disk (EDQUOT)'],
    );
  });

  it("gives any other failure's own message, with the code when it has one; never a stack trace", () => {
    assert.equal(fileFailure(systemError('EMFILE', 'EMFILE: too many open files'), 'read'), 'EMFILE: too many open files (EMFILE)');
    const plain = fileFailure(new Error('the archive ends early'), 'read');
    assert.equal(plain, 'the archive ends early');
    assert.equal(fileFailure('a thrown text', 'write'), 'a thrown text');
  });

  it("tells the system's errors (an errno code) from a refusal, a bug or SQLite's", () => {
    const cases: [string, unknown, boolean][] = [
      ['ENOENT', systemError('ENOENT'), true],
      ['EACCES', systemError('EACCES'), true],
      ['a Node code', Object.assign(new TypeError('bad argument'), { code: 'ERR_INVALID_ARG_TYPE' }), false],
      ['a refusal', new AppError(409, 'FILE_EXISTS', 'there is a file of that name'), false],
      ['SQLite', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), false],
      ['no code', new Error('plain'), false],
      ['nothing', null, false],
    ];
    assert.deepEqual(
      cases.map(([label, error]) => [label, isSystemError(error)]),
      cases.map(([label, , expected]) => [label, expected]),
    );
  });
});

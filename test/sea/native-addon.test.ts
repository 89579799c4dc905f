import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { privateCacheDir } from '../../src/sea/native-addon.js';

describe('privateCacheDir', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'clinic-cache-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('creates $XDG_CACHE_HOME/clinic with mode 0700', () => {
    const dir = privateCacheDir({ XDG_CACHE_HOME: base });
    assert.equal(dir, join(base, 'clinic'));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  });

  it('names the folder and what to set when it cannot be made, not a bare system code (issue 42, 14)', () => {
    // A home that cannot hold a folder (as root may write anywhere, a file stands in for a home it may not write in).
    writeFileSync(join(base, 'home'), '');
    assert.throws(
      () => privateCacheDir({ HOME: join(base, 'home') }),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'CACHE_FOLDER_UNUSABLE' &&
        error.message.includes(join(base, 'home', '.cache', 'clinic')) &&
        /a part of that path is a file, not a folder \(ENOTDIR\)/.test(error.message) &&
        error.message.includes('Set XDG_CACHE_HOME'),
    );
  });

  it('takes away the access of others from an existing directory', () => {
    mkdirSync(join(base, 'clinic'));
    chmodSync(join(base, 'clinic'), 0o755);
    privateCacheDir({ XDG_CACHE_HOME: base });
    assert.equal(statSync(join(base, 'clinic')).mode & 0o777, 0o700);
  });

  it('refuses a symlink in place of the directory', () => {
    mkdirSync(join(base, 'elsewhere'));
    symlinkSync(join(base, 'elsewhere'), join(base, 'clinic'));
    assert.throws(() => privateCacheDir({ XDG_CACHE_HOME: base }), /is not a directory/);
  });

  it('falls back to ~/.cache/clinic when XDG_CACHE_HOME is unset or relative', () => {
    assert.equal(privateCacheDir({ HOME: base }), join(base, '.cache', 'clinic'));
    assert.equal(privateCacheDir({ XDG_CACHE_HOME: 'relative/cache', HOME: base }), join(base, '.cache', 'clinic'));
  });
});

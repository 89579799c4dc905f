import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
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

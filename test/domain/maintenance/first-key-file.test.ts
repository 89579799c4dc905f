import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HAS_MODES } from '../../../src/db/file-modes.js';
import { FIRST_KEY_FILE, writeFirstKeyFile } from '../../../src/domain/maintenance/first-key-file.js';
import { useDataDirs } from '../../helpers/fixtures.js';

// The first API key a server started as a service leaves for IT in its data directory, instead of
// the system journal every administrator reads (docs/install.md; `clinic check` names the file).

const newDir = useDataDirs();
const KEY = 'ck_live_0123456789abcdef';

/** Runs `work` with the process's umask set to `mask`, then puts the old one back. */
async function withUmask<T>(mask: number, work: () => Promise<T>): Promise<T> {
  const before = process.umask(mask);
  try {
    return await work();
  } finally {
    process.umask(before);
  }
}

describe('writeFirstKeyFile', () => {
  it('writes the key on a line of its own, with what to do with it, and returns the path', async () => {
    const dataDir = newDir();
    const path = await writeFirstKeyFile(dataDir, KEY);
    assert.equal(path, join(dataDir, FIRST_KEY_FILE));
    const lines = readFileSync(path, 'utf8').split('\n');
    assert.ok(lines.includes(KEY), `the key alone on a line, to copy: ${JSON.stringify(lines)}`);
    assert.ok(
      lines.some((line) => line.includes('Authorization: Bearer <key>')),
      'says how the key is sent',
    );
    assert.ok(
      lines.some((line) => line.includes('delete this file')),
      'says to delete the file once the key is stored',
    );
  });

  it(
    "is the server's user's alone (0600) whatever the umask, never the desk staff's group",
    { skip: !HAS_MODES && 'no modes on Windows' },
    async () => {
      for (const mask of [0, 0o022, 0o077]) {
        const path = await withUmask(mask, () => writeFirstKeyFile(newDir(), KEY));
        assert.equal(statSync(path).mode & 0o777, 0o600, `umask ${mask.toString(8)}`);
      }
    },
  );

  it('replaces the key of an earlier database whole, and leaves no temporary file beside it', async () => {
    const dataDir = newDir();
    writeFileSync(join(dataDir, FIRST_KEY_FILE), 'ck_live_old key of an earlier database, never deleted\n'.repeat(20));
    await writeFirstKeyFile(dataDir, KEY);
    const text = readFileSync(join(dataDir, FIRST_KEY_FILE), 'utf8');
    assert.ok(text.includes(KEY) && !text.includes('ck_live_old'), text);
    assert.deepEqual(readdirSync(dataDir), [FIRST_KEY_FILE]);
  });
});

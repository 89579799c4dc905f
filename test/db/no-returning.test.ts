import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

const dbDir = fileURLToPath(new URL('../../src/db', import.meta.url));

// A write read back with RETURNING and `.get()` outside a transaction is acknowledged even when
// its commit fails (test/fault/storage.test.ts shows the lost patient); src/db writes with
// `.run()` and reads afterwards instead (open-database.ts).
it('src/db has no INSERT/UPDATE/DELETE ... RETURNING', () => {
  const offenders = readdirSync(dbDir)
    .filter((name) => name.endsWith('.ts'))
    .filter((name) => /\bRETURNING\b/.test(readFileSync(join(dbDir, name), 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '')));
  assert.deepEqual(offenders, []);
});

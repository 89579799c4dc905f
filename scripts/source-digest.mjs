// The digest of what dist/clinic.js is built from: every file under src/, schema.sql, the lock
// file (the bundled dependencies' versions) and the build script. scripts/build.mjs writes it
// beside the bundle; the tests start the bundle instead of the source through tsx only while the
// digest still matches (test/helpers/run-cli.ts, `checkoutProgram`), so a stale bundle is never
// what a test runs.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where the digest of the bundle's sources is written, beside the bundle. */
export const BUNDLE_DIGEST_FILE = join(root, 'dist/clinic.js.sources');

/** The SHA-256 of the bundle's sources, by path and content, in a stable order. */
export function sourceDigest() {
  const files = [
    ...filesUnder(join(root, 'src')),
    join(root, 'schema.sql'),
    join(root, 'package-lock.json'),
    join(root, 'scripts/build.mjs'),
  ];
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

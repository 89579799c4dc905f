// `npm run test:dist`: builds dist/clinic, copies it alone into an empty directory, and runs the
// black-box HTTP, CLI and fault suites against that copy with a PATH on which no node can be found.
// The test runner itself runs on this machine's Node; only the processes it starts must do
// without one.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!process.argv.includes('--no-build')) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: 'inherit' });

const place = mkdtempSync(join(tmpdir(), 'clinic-dist-'));
const bin = join(place, 'clinic');
copyFileSync(join(root, 'dist/clinic'), bin);
// The executable writes its SQLite addon to the user's cache directory: use a fresh one, so the
// run proves that a first start on a new PC works.
const cache = mkdtempSync(join(tmpdir(), 'clinic-dist-cache-'));
// The suites that start the program, and the upgrade of a 1.0.0 data directory by this one.
const suites = ['test/server', 'test/cli', 'test/fault', 'test/db/upgrade.test.ts']
  .filter((path) => existsSync(join(root, path)))
  .flatMap((path) =>
    path.endsWith('.test.ts')
      ? [path]
      : readdirSync(join(root, path), { recursive: true })
          .map(String)
          .filter((f) => f.endsWith('.test.ts'))
          .map((f) => join(path, f)),
  )
  .sort();
// PATH is that new directory alone, holding nothing but the copy: no node can be found on it.
console.log(`testing ${bin} (alone in ${place}, PATH=${place}) with ${suites.length} test files`);
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', ...suites], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: place, CLINIC_BIN: bin, XDG_CACHE_HOME: cache },
});
rmSync(place, { recursive: true, force: true });
rmSync(cache, { recursive: true, force: true });
process.exitCode = run.status ?? 1;

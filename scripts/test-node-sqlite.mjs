// `npm run test:node-sqlite`: the suites again with node:sqlite, the driver of clinic.exe, on the
// pinned Node 24 (Node 20 has no node:sqlite), less the files in which the driver decides nothing
// (docs/development.md, "What each run covers"). CLINIC_NODE_SQLITE_ALL=1 runs them too.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// What these test is the wire, a browser, a third-party client, the file system, the terminal,
// the machine's time zone or real hours passing, not a statement: the driver runs no SQL in them
// that the other files do not run too. Checked by comparing the V8 coverage of src/db under
// node:sqlite with them and without (docs/development.md).
const DRIVER_DECIDES_NOTHING = [
  // The wire and the documents describing it.
  'server/browser-network',
  'server/connection-limits',
  'server/docs-page',
  'server/expect-continue',
  'server/generated-client',
  'server/host-and-origin',
  'server/hostile-json',
  'server/multipart-form',
  'server/openapi',
  'server/openapi-examples',
  'server/plain-beside-tls',
  'server/prism-proxy',
  'server/slow-clients',
  // The process, its files, folders, users and terminal; TLS; the machine's time zone.
  'cli/autostart',
  'cli/check-tls',
  'cli/desk-group',
  'cli/desk-pc',
  'cli/executable',
  'cli/folder-modes',
  'cli/hostile-data-dir',
  'cli/progress',
  'cli/root-owned-files',
  'cli/serve-first-run',
  'cli/serve-network',
  'cli/serve-start',
  'cli/settings',
  'cli/terminal-safety',
  'cli/tls',
  // Random requests against the HTTP parsers; a week of reminders in real time (the sender's
  // statements run in test/domain and test/server).
  'fault/fuzz',
  'fault/reminder-week',
].map((name) => `test/${name}.test.ts`);

const all = process.env.CLINIC_NODE_SQLITE_ALL === '1';
const suites = ['db', 'domain', 'server', 'fault', 'cli']
  .flatMap((folder) =>
    readdirSync(join(root, 'test', folder), { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => join('test', folder, file)),
  )
  .filter((file) => all || !DRIVER_DECIDES_NOTHING.includes(file))
  .sort();
console.log(`node:sqlite on Node ${process.versions.node}: ${suites.length} test files`);
const run = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './test/helpers/blocking-stdout.mjs',
    '--test',
    '--test-force-exit',
    '--test-concurrency=2',
    '--test-timeout=600000',
    ...suites,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, CLINIC_SQLITE_DRIVER: 'node:sqlite' } },
);
process.exitCode = run.status ?? 1;

// `npm run test:dist`: builds dist/clinic, copies it alone into an empty directory, and runs the
// files of the HTTP, CLI and fault suites that start the program against that copy, with a PATH on
// which no node can be found.
// `npm run test:wine` (`--windows`): the same for dist/clinic.exe, run under Wine 10 from the
// Debian trixie root of scripts/wine-root.sh, through scripts/wine-exe.sh.
// The test runner itself runs on this machine's Node; only the processes it starts must do
// without one.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existingTestFiles, runTestFiles, startsTheProgram, testFilesIn } from './run-tests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const windows = process.argv.includes('--windows');
if (!process.argv.includes('--no-build')) {
  execFileSync('bash', [join(root, 'build.sh'), ...(windows ? ['win-x64'] : [])], { cwd: root, stdio: 'inherit' });
}

const place = mkdtempSync(join(tmpdir(), 'clinic-dist-'));
const bin = join(place, 'clinic');
// The executable writes its SQLite addon to the user's cache directory: use a fresh one, so the
// run proves that a first start on a new PC works.
const cache = mkdtempSync(join(tmpdir(), 'clinic-dist-cache-'));
const env = { ...process.env, PATH: place, CLINIC_BIN: bin, XDG_CACHE_HOME: cache };
if (windows) {
  execFileSync('bash', [join(root, 'scripts/wine-root.sh'), '--mount', root.replace(/\/$/, '')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  copyFileSync(join(root, 'dist/clinic.exe'), join(place, 'clinic.exe'));
  // `clinic` runs clinic.exe under Wine; the launcher's own tools come from the system's PATH.
  writeFileSync(
    bin,
    `#!/bin/sh\nPATH=/usr/sbin:/usr/bin:/sbin:/bin exec ${join(root, 'scripts/wine-exe.sh')} ${join(place, 'clinic.exe')} "$@"\n`,
  );
  chmodSync(bin, 0o755);
  // The tests ask the program to stop as Windows would be asked, and read paths as it prints them.
  env.CLINIC_BIN_PLATFORM = 'win32';
  env.CLINIC_WINE_LOGS = place;
  env.CLINIC_WINE_EXE = join(root, 'scripts/wine-exe.sh');
  // dist/clinic beside it, for the backups that move between Linux and Windows (npm run test:dist builds it).
  if (existsSync(join(root, 'dist/clinic'))) {
    copyFileSync(join(root, 'dist/clinic'), join(place, 'clinic-linux'));
    chmodSync(join(place, 'clinic-linux'), 0o755);
    env.CLINIC_LINUX_BIN = join(place, 'clinic-linux');
  }
} else {
  copyFileSync(join(root, 'dist/clinic'), bin);
}
// The files that test what a desk command or an endpoint decides and prints from the database,
// not how it meets its platform or runs as a process: `npm test` runs them (in process, or
// spawned from the bundle both executables are built from) and `test:node-sqlite` on clinic.exe's
// driver and runtime. On an executable they would add minutes and no path of its own; every file
// that touches files, paths, modes, the console, processes, signals, the machine's time zone, the
// addon, serve, backup, restore, an upgrade, the wire (Node 24's parser), TLS, streams, outgoing
// requests or the executable's own assets (the OpenAPI document, the docs page) still runs
// (docs/development.md, "What each run covers"). CLINIC_DIST_ALL=1 runs them too.
const DECIDED_FROM_THE_DATABASE = existingTestFiles(
  [
    'balances-in-currencies',
    'commands/appointment',
    'commands/catalog',
    'commands/invoice',
    'commands/notifications',
    'commands/patient',
    'commands/payment',
    'commands/report',
    'desk',
    'desk-second-day',
    'invisible-names',
    // Every desk command as a person of each role: a few hundred commands, decided from the
    // database (staff.test.ts runs logins and the session file on both executables).
    'desk-roles',
  ]
    .map((name) => `test/cli/${name}.test.ts`)
    .concat(
      [
        'audit-size',
        'input-bounds',
        'middleware/authorize',
        'middleware/throttle-failed-keys',
        'read-scopes',
        'retired-catalog',
        'routes/appointments',
        'routes/audit',
        'routes/invoices',
        'routes/lookups',
        'routes/patients',
        'routes/payments',
        'routes/reminders',
        'search-as-typed',
      ].map((name) => `test/server/${name}.test.ts`),
    ),
);
// Its two PCs are two XDG_CONFIG_HOME folders; on Windows the folder is %APPDATA%\\clinic, which the test does not set.
const NOT_ON_WINDOWS = existingTestFiles(['test/cli/desk-pc.test.ts']);
// The test files beside their sources outside test/cli that start the program as the desk does,
// from files and folders of the machine: each runs on both executables (test/server's on
// dist/clinic as part of its folder).
const STARTING_THE_PROGRAM_ELSEWHERE = existingTestFiles([
  'test/db/data-directory.test.ts',
  'test/db/file-modes.test.ts',
  // The upgrade of a 1.0.0 data directory by this one.
  'test/db/migrations.test.ts',
  'test/domain/audit/audit-anchor.test.ts',
  'test/domain/changes/feed-after-restore.test.ts',
  'test/domain/documents/upload-document.test.ts',
  'test/domain/maintenance/backup-archive.test.ts',
  'test/domain/maintenance/backup.test.ts',
  'test/domain/maintenance/tls-check.test.ts',
  'test/domain/named-files.test.ts',
  // serve as the desk starts it: its network flags, backups and outgoing mail.
  'test/server/connections/network-policy.test.ts',
  'test/server/workers/backup-schedule.test.ts',
  'test/server/workers/notification-worker.test.ts',
]);
const doesNotStart = STARTING_THE_PROGRAM_ELSEWHERE.filter((path) => !startsTheProgram(path));
if (doesNotStart.length > 0) throw new Error(`named as starting the program, but starts none: ${doesNotStart.join(', ')}`);
// Names useTestServer only for a suite that it skips on an executable (whose request timeout is
// 30 s); the rest of it is Node's HTTP server in the runner's own process.
const STARTS_IT_ONLY_FROM_SOURCE = existingTestFiles(['test/server/connections/http-server.test.ts']);
// The suites that start the program: a file that starts none tests the source in the runner's own
// process (the desk's formatting, the server's middleware, commit groups, throttles, the reminder
// week's serve-on-clock), which npm test has run already. Under Wine, unless CLINIC_SUITES
// chooses others, the desk's and those beside their sources: CI leaves the HTTP and fault suites
// to the Linux runs.
const wanted = process.env.CLINIC_SUITES?.split(',') ?? (windows ? ['test/cli/', ...STARTING_THE_PROGRAM_ELSEWHERE] : undefined);
const suites = [...new Set(testFilesIn(['test/server', 'test/cli', 'test/fault', ...STARTING_THE_PROGRAM_ELSEWHERE]))]
  .filter((path) => startsTheProgram(path) && !STARTS_IT_ONLY_FROM_SOURCE.includes(path))
  .filter((path) => wanted === undefined || wanted.some((part) => path.includes(part)))
  .filter((path) => process.env.CLINIC_DIST_ALL === '1' || !DECIDED_FROM_THE_DATABASE.includes(path))
  .filter((path) => !windows || !NOT_ON_WINDOWS.includes(path));
// PATH is that new directory alone, holding nothing but the copy: no node can be found on it.
console.log(
  `testing ${windows ? `${bin} (clinic.exe under Wine)` : bin} (alone in ${place}, PATH=${place}) with ${suites.length} test files`,
);
const status = runTestFiles(suites, env);
rmSync(place, { recursive: true, force: true });
rmSync(cache, { recursive: true, force: true });
process.exitCode = status;

// Runs test files under node:test the one way every run here does: `npm test` (all of test/, or
// the files and folders named: `npm test -- test/server/routes/patients.test.ts`), and through
// runTestFiles `npm run test:node-sqlite`, `test:dist` and `test:wine`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILED_ROOT, compiledTestFile, compileTests } from './compile-tests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Three files at a time on this two-core machine: the suite waits on child processes, fsync and
 * sockets for a quarter of its time, and a third file fills it (npm test: 339 s with two, 299 s
 * with three, the same CPU time).
 */
const CONCURRENCY = 3;

/**
 * The files that take longest (over 12 s in one of CI's runs on 2026-11-30, the longest first),
 * started before all others: three at a time, a long file started last would run on alone at the
 * end while the other cores wait (clinic.exe's staff.test.ts took 50 s under Wine, and came
 * near the end of the alphabet). A file not named here runs in alphabetical order after them.
 */
const SLOWEST_FIRST = existingTestFiles([
  'test/cli/commands/staff.test.ts',
  'test/cli/desk-pc.test.ts',
  'test/fault/reminder-week.test.ts',
  'test/cli/commands/settings.test.ts',
  'test/cli/commands/serve.test.ts',
  'test/server/workers/backup-schedule.test.ts',
  'test/cli/program.test.ts',
  'test/cli/commands/tls.test.ts',
  'test/cli/commands/webhook.test.ts',
  'test/server/connections/http-server.test.ts',
  'test/fault/feed-faults.test.ts',
  'test/cli/commands/reminders.test.ts',
  'test/fault/audit-faults.test.ts',
  'test/server/routes/documents.test.ts',
  'test/cli/commands/audit.test.ts',
]);

/** The `.test.ts` files of `paths` (files, or folders searched through), relative to the root, the slowest first. */
export function testFilesIn(paths) {
  return paths
    .flatMap((path) =>
      statSync(join(root, path)).isDirectory()
        ? readdirSync(join(root, path), { recursive: true })
            .map(String)
            .filter((file) => file.endsWith('.test.ts'))
            .map((file) => join(path, file))
        : [path],
    )
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * `paths`, each checked to be a test file here: a list of files that a moved or renamed test
 * left behind would silently stop choosing it.
 */
export function existingTestFiles(paths) {
  const missing = paths.filter((path) => !existsSync(join(root, path)));
  if (missing.length > 0) throw new Error(`no such test file: ${missing.join(', ')}`);
  return paths;
}

/**
 * The helpers of test/helpers that start the program under test: with CLINIC_BIN set (test:dist,
 * test:wine) they start that executable, else the checkout's. test/scripts/run-tests.test.ts
 * holds the list whole: every exported helper that calls one of these is one of them.
 */
export const PROGRAM_STARTERS = [
  'bootUntilPowerCut',
  'createPatientWithCli',
  'programCommand',
  'runAsNobody',
  'runClinic',
  'runExecutable',
  'spawnClinic',
  'startServeProcess',
  'startTestServer',
  'useRestoredBackup',
  'useTestServer',
  'useUpgradedRelease',
];

const namesAStarter = new RegExp(`\\b(${PROGRAM_STARTERS.join('|')})\\b`);

/**
 * Whether the test file at `path` starts the program (it names a helper of PROGRAM_STARTERS).
 * A file that does not tests the source in the runner's own process, the same on every run.
 */
export function startsTheProgram(path) {
  return namesAStarter.test(readFileSync(join(root, path), 'utf8'));
}

function rank(file) {
  const index = SLOWEST_FIRST.indexOf(file);
  return index === -1 ? SLOWEST_FIRST.length : index;
}

/**
 * Runs `files` in the test runner with `env`, compiled to JavaScript first (scripts/compile-tests.mjs
 * says why); returns its exit status.
 */
export function runTestFiles(files, env = process.env) {
  compileTests();
  const run = spawnSync(
    process.execPath,
    [
      '--enable-source-maps',
      // Blocking standard output, so that a forced exit loses no result (the file says why).
      '--import',
      './test/helpers/blocking-stdout.mjs',
      '--test',
      '--test-force-exit',
      `--test-concurrency=${CONCURRENCY}`,
      '--test-timeout=600000',
      ...files.map(compiledTestFile),
    ],
    { cwd: COMPILED_ROOT, stdio: 'inherit', env },
  );
  return run.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const named = process.argv.slice(2);
  process.exitCode = runTestFiles(testFilesIn(named.length > 0 ? named : ['test']));
}

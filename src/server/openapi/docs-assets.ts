import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A file of the swagger-ui-dist package, by its name in the package. */
export interface PackageAsset {
  name: string;
  bytes: Uint8Array;
}

/**
 * The swagger-ui-dist files listed in docs-assets.json. In development they are read from
 * node_modules. The bundlers replace this whole module, so that the built program serves the
 * docs page with no file beside it and no network: scripts/build.mjs inlines the files' text in
 * dist/clinic.js; scripts/package.mjs embeds them as assets of dist/clinic and reads them from
 * there without a copy.
 */
export function loadDocsAssets(): PackageAsset[] {
  const require = createRequire(import.meta.url);
  const names = JSON.parse(readFileSync(new URL('./docs-assets.json', import.meta.url), 'utf8')) as string[];
  return names.map((name) => ({ name, bytes: readFileSync(require.resolve(`swagger-ui-dist/${name}`)) }));
}

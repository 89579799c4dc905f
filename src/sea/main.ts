import { processIo } from '../cli/io.js';
import { runCli } from '../cli/program.js';
import { loadEmbeddedAddon } from './native-addon.js';

// Set by scripts/package.mjs (esbuild `define`): the SHA-256 of the addon embedded beside this script.
declare const CLINIC_ADDON_SHA256: string;

// The entry point of the single executable dist/clinic (bundled as CommonJS, as Node's SEA
// requires). Unlike src/main.ts it brings its own SQLite addon instead of finding node_modules.
let nativeBinding: object | undefined;
try {
  nativeBinding = loadEmbeddedAddon(CLINIC_ADDON_SHA256);
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
if (nativeBinding !== undefined) {
  void runCli(process.argv.slice(2), processIo(), { nativeBinding }).then((code) => {
    process.exitCode = code;
  });
}

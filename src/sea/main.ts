import { processIo } from '../cli/io.js';
import { runCli } from '../cli/program.js';
import { provideDeskCommands } from '../cli/desk-command-runner.js';
import { runDeskPcCommand } from '../cli/desk-pc-commands.js';
import { reportError } from '../cli/report-error.js';
import { AppError } from '../errors.js';
import { betterSqlite3Driver } from '../db/drivers/better-sqlite3.js';
import { nodeSqliteDriver } from '../db/drivers/node-sqlite.js';
import { DRIVER_VARIABLE, driverNamedInEnvironment, useSqliteDriver } from '../db/drivers/sqlite-driver.js';
import { loadEmbeddedAddon } from './native-addon.js';

// Set by scripts/package.mjs (esbuild `define`): the SHA-256 of the better-sqlite3 addon embedded
// beside this script, or '' where none is (clinic.exe: better-sqlite3 cannot be built for Windows here).
declare const CLINIC_ADDON_SHA256: string;

// The entry point of the single executables dist/clinic and dist/clinic.exe (bundled as CommonJS,
// as Node's SEA requires). Unlike src/main.ts it brings its own SQLite: better-sqlite3's addon
// where one is embedded, else Node's built-in node:sqlite (docs/design-choices.md, "Windows and the two SQLite drivers").
function chooseDriver(): void {
  const wanted = driverNamedInEnvironment();
  if (CLINIC_ADDON_SHA256 === '' || wanted === 'node:sqlite') {
    if (wanted === 'better-sqlite3') throw new Error(`${DRIVER_VARIABLE} is "${wanted}", but this executable has node:sqlite only`);
    useSqliteDriver(nodeSqliteDriver());
    return;
  }
  useSqliteDriver(betterSqlite3Driver(loadEmbeddedAddon(CLINIC_ADDON_SHA256)));
}

let ready = false;
try {
  chooseDriver();
  ready = true;
} catch (error) {
  // A coded refusal (CACHE_FOLDER_UNUSABLE) as every command prints one; anything else as it says.
  if (error instanceof AppError) process.exitCode = reportError(processIo(), error, process.argv.includes('--json'));
  else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
if (ready) {
  // `clinic serve` runs desk PCs' commands with this very command line.
  provideDeskCommands(runDeskPcCommand);
  void runCli(process.argv.slice(2), processIo()).then((code) => {
    process.exitCode = code;
  });
}

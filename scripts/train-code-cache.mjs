// One training run of a program's code cache (scripts/package.mjs, trainCodeCaches): runs the
// bundle on one command line, compiled as the executable compiles it (src/sea/program-script.ts)
// with the cache of the runs before, and writes V8's cache of everything compiled so far when the
// command has finished. Run by the executable's runtime under its flags (V8 accepts a cache only
// from the same version and flags), bundled by package.mjs into build/sea:
//
//   node <RUNTIME_FLAGS> build/sea/train-code-cache.mjs BUNDLE CACHE_IN|- CACHE_OUT|- -- ARG...
//   node <RUNTIME_FLAGS> build/sea/train-code-cache.mjs --server SERVER_BUNDLE CACHE_OUT
//
// A `-` for CACHE_IN compiles without a cache; for CACHE_OUT, writes none.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { compileFunction } from 'node:vm';
import { compileProgram, MODULE_PARAMETERS, moduleFunctionOf, runModule } from '../src/sea/program-script.ts';

if (process.argv[2] === '--server') {
  // The server's bundle: its cache made at compile time, then checked (src/sea/program-script.ts, compileServerProgram).
  const [, , , bundle, cacheOut] = process.argv;
  const source = readFileSync(bundle, 'latin1');
  const filename = basename(bundle);
  const made = compileFunction(source, MODULE_PARAMETERS, { filename, produceCachedData: true });
  if (made.cachedData === undefined) throw new Error('V8 made no code cache of the server bundle');
  const checked = compileFunction(source, MODULE_PARAMETERS, { filename, cachedData: made.cachedData });
  if (checked.cachedDataRejected) throw new Error('V8 rejected the code cache of the server bundle it had just made');
  writeFileSync(cacheOut, made.cachedData);
  process.exit(0);
}
const [bundle, cacheIn, cacheOut, separator, ...args] = process.argv.slice(2);
if (bundle === undefined || cacheIn === undefined || cacheOut === undefined || separator !== '--') {
  throw new Error('usage: train-code-cache.mjs BUNDLE CACHE_IN|- CACHE_OUT|- -- ARG...');
}
const cachedData = cacheIn === '-' ? undefined : readFileSync(cacheIn);
// Compiled under its asset's name (build/sea/clinic-patient.cjs is the asset clinic-patient.cjs), as the executable compiles it.
const asset = basename(bundle);
const script = compileProgram(readFileSync(bundle, 'latin1'), asset, cachedData);
// A cache this runtime rejects would be as useless in the executable: the build stops here.
if (cachedData !== undefined && script.cachedDataRejected) throw new Error(`V8 rejected the code cache ${cacheIn}`);
// Written only when the command succeeded: the build stops on a failed one.
process.on('exit', (code) => {
  if (code === 0 && cacheOut !== '-') writeFileSync(cacheOut, script.createCachedData());
});
// The program reads its command line as an executable's: process.argv.slice(2).
process.argv = [process.argv[0], asset, ...args];
runModule(moduleFunctionOf(script), createRequire(import.meta.url), asset);

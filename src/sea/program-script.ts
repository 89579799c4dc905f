import { Module } from 'node:module';
import { Script } from 'node:vm';

/**
 * The program inside the single executable: its bundle (src/sea/main.ts as one CommonJS file) is
 * an asset of the executable, compiled by src/sea/loader.ts with V8's code cache, another asset.
 * That cache is made by scripts/package.mjs after a day's desk commands have run (scripts/
 * train-code-cache.mjs), so it holds every function they compiled, not only the script's top
 * level as Node's own SEA code cache does: a desk command then compiles almost nothing at start.
 * The build and the executable compile the bundle through this one function, so that the text V8
 * checks the cache against is the same in both.
 */

// Set by scripts/package.mjs (esbuild `define`), which names the executable's assets: the keys of
// the bundle and of its code cache.
declare const CLINIC_SEA_ASSETS: { program: string; codeCache: string };
export const PROGRAM_ASSET = CLINIC_SEA_ASSETS.program;
export const CODE_CACHE_ASSET = CLINIC_SEA_ASSETS.codeCache;

/** The bundle `source` compiled as a CommonJS module's body, with `cachedData` when there is one. */
export function compileProgram(source: string, filename: string, cachedData?: Uint8Array): Script {
  return new Script(Module.wrap(source), { filename, cachedData });
}

/** Runs the compiled bundle as a CommonJS module with `require` (the executable's: built-in modules only). */
export function runProgram(script: Script, require: NodeJS.Require, filename: string): void {
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, filename, '.');
}

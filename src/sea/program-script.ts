import { compileFunction, Script } from 'node:vm';

/**
 * The program inside the single executable: its bundle (src/sea/main.ts as one CommonJS file) is
 * an asset of the executable, compiled by src/sea/loader.ts with V8's code cache, another asset.
 * That cache is made by scripts/package.mjs after a day's desk commands have run (scripts/
 * train-code-cache.mjs), so it holds every function they compiled, not only the script's top
 * level as Node's own SEA code cache does: a desk command then compiles almost nothing at start.
 * The build and the executable compile each bundle through the same function here, so that the
 * text V8 checks the cache against is the same in both.
 *
 * `clinic serve` runs a second bundle of the same program, whose command groups are imported at
 * its start rather than when typed (scripts/package.mjs, eagerCommandGroups): a module loaded
 * later is evaluated by esbuild in a wrapper, and V8 optimises the server's hot functions that use
 * such a module's bindings less well (11 % more CPU per POST /appointments). It is compiled by
 * compileServerProgram, and its code cache is made as it compiles.
 */

// Set by scripts/package.mjs (esbuild `define`), which names the executable's assets: the keys of
// the two bundles of the program and of their code caches.
declare const CLINIC_SEA_ASSETS: { program: string; codeCache: string; serverProgram: string; serverCodeCache: string };
export const SEA_ASSETS = CLINIC_SEA_ASSETS;
export const PROGRAM_ASSET = CLINIC_SEA_ASSETS.program;

/** The CommonJS module function's parameters, as Node's loader gives them. */
export const MODULE_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname'];

/**
 * The bundle `source` compiled as a CommonJS module's body (the function Node's Module.wrap
 * writes, spelt here: loading node:module for it cost a desk command 0.2 ms), with `cachedData`
 * when there is one.
 */
export function compileProgram(source: string, filename: string, cachedData?: Uint8Array): Script {
  return new Script(`(function (${MODULE_PARAMETERS.join(', ')}) { ${source}\n});`, { filename, cachedData });
}

/** A bundle compiled as a CommonJS module's function, to be called with MODULE_PARAMETERS. */
export type ModuleFunction = (...args: unknown[]) => void;

/**
 * The server's bundle compiled as Node compiles a CommonJS module (and an executable's main
 * script): a function of the module's parameters. The server's hot functions ran 10 % more CPU
 * per answer compiled inside a script by compileProgram. Its cache can only be made at compile
 * time (the script's top level), as Node's own SEA code cache is.
 */
export function compileServerProgram(source: string, filename: string, cachedData?: Uint8Array): ModuleFunction {
  return compileFunction(source, MODULE_PARAMETERS, { filename, cachedData }) as ModuleFunction;
}

/** The module function of a bundle compiled by compileProgram. */
export const moduleFunctionOf = (script: Script): ModuleFunction => script.runInThisContext() as ModuleFunction;

/** Runs a compiled bundle as a CommonJS module with `require` (the executable's: built-in modules only). */
export function runModule(moduleFunction: ModuleFunction, require: NodeJS.Require, filename: string): void {
  const module = { exports: {} };
  moduleFunction(module.exports, require, module, filename, '.');
}

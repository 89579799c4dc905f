import { compileFunction, Script } from 'node:vm';

/**
 * The program inside the single executable: its bundles (src/sea/main.ts as one CommonJS file)
 * are assets of the executable, compiled by src/sea/loader.ts with V8's code cache, another asset
 * each. A desk program's cache is made by scripts/package.mjs after a day's desk commands have
 * run (scripts/train-code-cache.mjs), so it holds every function they compiled, not only the
 * script's top level as Node's own SEA code cache does: a desk command then compiles almost
 * nothing at start. The build and the executable compile each bundle through the same function
 * here, so that the text V8 checks the cache against is the same in both.
 *
 * Each command group of a receptionist's day (patient, appointment, invoice, payment, report) has
 * a bundle of its own, with its commands only, and the loader chooses it by the command's first
 * word; every other desk command runs the whole desk bundle. The whole bundle carries the code of
 * every command (the server, its HTTP stack, mail, TLS, backups), and a desk command paid for
 * all of it at every start, whether it ran or not: V8 deserialised the cache of the script's top
 * level, where esbuild hoists every module's functions (6.5 ms of `patient find`'s 9.7 ms of
 * compiling), and the 2.7 MB text was read from the asset. The patient group's bundle is 0.59 MB
 * and `patient find` took 0.84 of the time it took from the whole (docs/benchmarks.md, "Fourth pass").
 *
 * `clinic serve` runs a bundle of the same program whose command groups are imported at its
 * start rather than when typed (scripts/package.mjs, eagerCommandGroups): a module loaded later
 * is evaluated by esbuild in a wrapper, and V8 optimises the server's hot functions that use such
 * a module's bindings less well (11 % more CPU per POST /appointments). It is compiled by
 * compileServerProgram, and its code cache is made as it compiles.
 */

// Set by scripts/package.mjs (esbuild `define`), which names the executable's assets: the desk's
// whole bundle, the server's, each day group's own by the top-level names it runs, and the code
// cache of each bundle (none in clinic.exe).
declare const CLINIC_SEA_ASSETS: {
  program: string;
  serverProgram: string;
  commandPrograms: Record<string, string>;
  codeCaches: Record<string, string>;
};
export const SEA_ASSETS = CLINIC_SEA_ASSETS;

/** The bundle that runs the command line `args` (the user's arguments): the server's, a day group's own, or the desk's whole. */
export function programFor(args: readonly string[]): string {
  const command = args[0];
  if (command === 'serve') return SEA_ASSETS.serverProgram;
  // Own names only: `clinic constructor` is an unknown command of the whole bundle, not Object's.
  const own = command !== undefined && Object.hasOwn(SEA_ASSETS.commandPrograms, command) ? SEA_ASSETS.commandPrograms[command] : undefined;
  return own ?? SEA_ASSETS.program;
}

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

import { getRawAsset } from 'node:sea';
import { compileProgram, compileServerProgram, moduleFunctionOf, programFor, runModule, SEA_ASSETS } from './program-script.js';

// Set by scripts/package.mjs (esbuild `define`): whether the executable carries the program's code
// cache (dist/clinic does; dist/clinic.exe does not, as its cache would be made by another
// platform's runtime, which V8 may reject).
declare const CLINIC_HAS_CODE_CACHE: boolean;

// The main script of dist/clinic and dist/clinic.exe: compiles and runs the program (src/sea/
// main.ts, bundled), which travels beside it as assets (program-script.ts says why): the server's
// bundle for `clinic serve`, a day group's own for its commands, the desk's whole for every other.
// A bundle is plain ASCII (scripts/package.mjs escapes the rest), so Latin-1 reads it as written.
// A cache V8 rejects is ignored by V8 (the program then compiles as it runs); the build checks
// that each cache it ships is accepted by this runtime under these flags.
const program = programFor(process.argv.slice(2));
const source = Buffer.from(getRawAsset(program) as ArrayBuffer).toString('latin1');
const codeCache = SEA_ASSETS.codeCaches[program];
const cachedData = CLINIC_HAS_CODE_CACHE && codeCache !== undefined ? new Uint8Array(getRawAsset(codeCache) as ArrayBuffer) : undefined;
const compiled =
  program === SEA_ASSETS.serverProgram
    ? compileServerProgram(source, program, cachedData)
    : moduleFunctionOf(compileProgram(source, program, cachedData));
runModule(compiled, require, program);

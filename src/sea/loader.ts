import { getRawAsset } from 'node:sea';
import { compileProgram, compileServerProgram, moduleFunctionOf, runModule, SEA_ASSETS } from './program-script.js';

// Set by scripts/package.mjs (esbuild `define`): whether the executable carries the program's code
// cache (dist/clinic does; dist/clinic.exe does not, as its cache would be made by another
// platform's runtime, which V8 may reject).
declare const CLINIC_HAS_CODE_CACHE: boolean;

// The main script of dist/clinic and dist/clinic.exe: compiles and runs the program (src/sea/
// main.ts, bundled), which travels beside it as an asset (program-script.ts says why): the
// server's bundle for `clinic serve`, the desk's for every other command. The bundle
// is plain ASCII (scripts/package.mjs escapes the rest), so Latin-1 reads it as written. A cache
// V8 rejects is ignored by V8 (the program then compiles as it runs); the build checks that the
// cache it ships is accepted by this runtime under these flags.
const serving = process.argv[2] === 'serve';
const [program, codeCache] = serving ? [SEA_ASSETS.serverProgram, SEA_ASSETS.serverCodeCache] : [SEA_ASSETS.program, SEA_ASSETS.codeCache];
const source = Buffer.from(getRawAsset(program) as ArrayBuffer).toString('latin1');
const cachedData = CLINIC_HAS_CODE_CACHE ? new Uint8Array(getRawAsset(codeCache) as ArrayBuffer) : undefined;
const compiled = serving
  ? compileServerProgram(source, program, cachedData)
  : moduleFunctionOf(compileProgram(source, program, cachedData));
runModule(compiled, require, program);

// Compiles src/ and test/ to JavaScript once, into a copy of the checkout that the test runs load
// (scripts/run-tests.mjs): through tsx, every test process started tsx's loader thread and sent
// each of its modules through it, about 0.3 s of CPU per file even with tsx's cache, and twice
// that for a file that loads the server (docs/development.md gives the figures). esbuild strips
// the types of all 700 files in about a second.
//
// The copy keeps the checkout's layout, so that a path a test finds from its own location (the
// root, a fixture, a source file it reads) is where it was: under build/test-js/, src/ and test/
// are real folders with each .ts file, its .js beside it and every other file copied (a test may
// copy a fixture and change the copy: a link would let it change the checkout's), and every other
// entry of the root is a link to the checkout's (node_modules, dist, scripts, package.json for
// "type": "module", build for the caches kept there).
import { copyFileSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where the compiled copy of the checkout is made. */
export const COMPILED_ROOT = join(root, 'build/test-js');

const COMPILED_FOLDERS = ['src', 'test'];

/** Folders under src/ and test/ that the tests write to, linked rather than copied so their content stays where a person looks. */
const LINKED_FOLDERS = new Set(['test/artifacts']);

/** Makes COMPILED_ROOT afresh from the checkout as it is now. */
export function compileTests() {
  rmSync(COMPILED_ROOT, { recursive: true, force: true });
  mkdirSync(COMPILED_ROOT, { recursive: true });
  for (const entry of readdirSync(root)) {
    if (entry === '.git' || COMPILED_FOLDERS.includes(entry)) continue;
    symlinkSync(join(root, entry), join(COMPILED_ROOT, entry));
  }
  const typeScript = [];
  for (const folder of COMPILED_FOLDERS) copyFolder(folder, typeScript);
  for (const folder of LINKED_FOLDERS) {
    mkdirSync(join(root, folder), { recursive: true });
    symlinkSync(join(root, folder), join(COMPILED_ROOT, folder));
  }
  buildSync({
    entryPoints: typeScript,
    outdir: COMPILED_ROOT,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // A failure's stack then names the TypeScript line (the runs pass --enable-source-maps).
    sourcemap: 'inline',
    sourcesContent: false,
    logLevel: 'warning',
  });
}

function copyFolder(folder, typeScript) {
  mkdirSync(join(COMPILED_ROOT, folder), { recursive: true });
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (LINKED_FOLDERS.has(path)) {
      continue;
    } else if (entry.isDirectory()) {
      copyFolder(path, typeScript);
    } else {
      copyFileSync(join(root, path), join(COMPILED_ROOT, path));
      if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) typeScript.push(join(root, path));
    }
  }
}

/** The compiled file under COMPILED_ROOT of the test file at `path` (relative to the root, ending .ts). */
export function compiledTestFile(path) {
  return join(COMPILED_ROOT, path.replace(/\.ts$/, '.js'));
}

// `npm run mutants`: breaks each rule of test/mutants.mjs in its source file, one at a time, runs
// the test files that must notice, and says which mutants were not killed. A rule whose tests
// moved (from an HTTP or desk file into a use case's table, issue 41) is listed here, so that a
// test removed as a duplicate is shown to have been no rule's only test. `npm run mutants -- NAME`
// runs the mutants whose title contains NAME. Not part of CI: about two seconds a mutant.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTANTS } from '../test/mutants.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const wanted = process.argv[2];
const chosen = MUTANTS.filter((mutant) => wanted === undefined || mutant.title.includes(wanted));

/** The source as it was, put back however the run ends. */
let restore = () => {};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    restore();
    process.exit(130);
  });
}

const failures = [];
for (const mutant of chosen) {
  const path = join(root, mutant.file);
  const original = readFileSync(path, 'utf8');
  const places = original.split(mutant.from).length - 1;
  if (places !== 1) {
    failures.push(`${mutant.title}: its text stands ${places} times in ${mutant.file}, not once (the source changed: update the mutant)`);
    console.log(`STALE     ${mutant.title}`);
    continue;
  }
  restore = () => writeFileSync(path, original);
  writeFileSync(path, original.replace(mutant.from, mutant.to));
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=dot', ...mutant.tests], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  restore();
  restore = () => {};
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (run.status === 0) {
    failures.push(`${mutant.title}: survived ${mutant.tests.join(' ')}`);
    console.log(`SURVIVED  ${mutant.title} (${seconds} s)`);
  } else {
    console.log(`killed    ${mutant.title} (${seconds} s)`);
  }
}
console.log(`${chosen.length - failures.length} of ${chosen.length} mutants killed`);
for (const failure of failures) console.log(`  ${failure}`);
process.exitCode = failures.length === 0 ? 0 : 1;

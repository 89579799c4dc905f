// Where the desk may write a file it is asked for (src/cli/target-path.ts): `document save ID FILE`, `patient export --out FILE`, `audit export --fhir FILE`; clinic-api-1.3.md, "Commands on a desk PC" and "The patient's copy" (folder missing: exit 2).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from 'commander';
import { runForDeskPc } from '../../src/cli/desk-identity.js';
import { parseTargetPath } from '../../src/cli/target-path.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { nobodySkipReason } from '../helpers/run-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Root may write in any folder: a folder closed to a user is shown to uid 65534 (nobody) instead. */
const runsAsRoot = process.getuid?.() === 0;

/** What parseTargetPath says of `target`, or '' when it takes it. */
function refusalOf(target: string): string {
  try {
    parseTargetPath(target);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

/** refusalOf as uid 65534 says it, in a Node process of its own. */
function refusalAsNobody(target: string): string {
  const code = `import { parseTargetPath } from './src/cli/target-path.js';
try { parseTargetPath(${JSON.stringify(target)}); } catch (error) { process.stdout.write(error.message); }`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    uid: 65534,
    gid: 65534,
    env: { ...process.env, HOME: tmpdir() },
    encoding: 'utf8',
  });
}

describe('the file a desk command writes (parseTargetPath)', () => {
  const data = useTestDatabase();
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'clinic-target-'));
  });
  after(() => {
    chmodSync(folder, 0o700);
    rmSync(folder, { recursive: true, force: true });
  });

  it('gives a new file in a folder that exists as its absolute path, a relative one read from the working directory', () => {
    const target = join(folder, 'Befund P-000042.pdf');
    assert.equal(parseTargetPath(target), target);
    assert.equal(parseTargetPath(relative(process.cwd(), target)), target);
    // A file already there is the command's to refuse (FILE_EXISTS) or replace (--force), not a usage error.
    writeFileSync(join(folder, 'there.pdf'), 'x');
    assert.equal(parseTargetPath(join(folder, 'there.pdf')), join(folder, 'there.pdf'));
  });

  it('refuses a folder that does not exist, and does not make it: a mistyped folder would hide patient data', () => {
    const missing = join(folder, 'Dokumente', 'Befunde');
    assert.throws(() => parseTargetPath(join(missing, 'x.pdf')), {
      constructor: InvalidArgumentError,
      message: `no such folder: ${missing}`,
    });
    assert.equal(existsSync(join(folder, 'Dokumente')), false, 'no folder was made');
  });

  it('refuses a folder given where the file name belongs, and a file given as its folder', () => {
    assert.throws(() => parseTargetPath(folder), { message: 'a folder: give the file name to write' });
    writeFileSync(join(folder, 'notes.txt'), 'x');
    assert.throws(() => parseTargetPath(join(folder, 'notes.txt', 'x.pdf')), {
      message: `not a folder: ${join(folder, 'notes.txt')}`,
    });
  });

  it(
    'refuses a folder this user may not write in, before anything is fetched',
    { skip: process.platform === 'win32' ? 'no file modes' : runsAsRoot && nobodySkipReason },
    () => {
      // Others may look into the test's folder, but write only in what they own.
      chmodSync(folder, 0o755);
      const closed = join(folder, 'closed');
      mkdirSync(closed, { mode: 0o555 });
      const target = join(closed, 'x.pdf');
      assert.equal(runsAsRoot ? refusalAsNobody(target) : refusalOf(target), `this user may not write in ${closed}`);
    },
  );

  it("takes the path as given on the server for a desk PC: it names the desk PC's file, which the desk PC checked", async () => {
    const caller = { source: 'api' as const, actor: null, roles: ['admin' as const] };
    const path = join(folder, 'no-such-folder-here', 'copy.pdf');
    assert.equal(await runForDeskPc({ db: data.db, caller }, async () => parseTargetPath(path)), path);
    assert.throws(() => parseTargetPath(path), { message: /^no such folder/ }, 'outside that run the path is checked here');
  });
});

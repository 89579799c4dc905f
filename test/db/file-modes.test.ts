import assert from 'node:assert/strict';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { octal } from '../../src/db/file-modes.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { createPatientWithCli, runClinic, startServeProcess, STOP_SIGNAL, testingExecutable } from '../helpers/run-cli.js';

/**
 * Issue 42, finding 15: after a power cut a document folder stayed at 2750, closed to the desk
 * group, since a crash between making a folder and setting its mode left it with what the umask
 * gave it, and nothing repaired it. Each run here is the real program as a child process, under
 * an old systemd unit's umask of 027, as the server ran.
 */

const newDir = useDataDirs();
const UMASK = 0o027;
const KILL_AT_CHMOD = resolve('test/helpers/kill-at-folder-chmod.mjs');

/** A data directory (`clinic init`) with one patient, and a file to upload: the patient's number and the file. */
async function clinicWithPatient(): Promise<{ dataDir: string; file: string }> {
  // Made by init, as an installation's is: 2770, so that what is made in it takes its group.
  const dataDir = join(newDir(), 'data');
  assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
  assert.equal(octal(statSync(dataDir).mode), '2770');
  await createPatientWithCli(dataDir);
  const file = join(newDir(), 'scan.pdf');
  writeFileSync(file, '%PDF-1.4 a scan');
  return { dataDir, file };
}

/** The modes of documents/ and of each patient's folder in it. */
function documentFolderModes(dataDir: string): Record<string, string> {
  const documents = join(dataDir, 'documents');
  const modes: Record<string, string> = { 'documents/': octal(statSync(documents).mode) };
  for (const name of readdirSync(documents)) modes[`documents/${name}/`] = octal(statSync(join(documents, name)).mode);
  return modes;
}

const skipModes =
  (process.platform !== 'linux' && 'the setgid bit of the data directory is Linux only') ||
  (testingExecutable && 'a built executable takes no NODE_OPTIONS preload');

describe('folders after a crash (issue 42, finding 15)', { skip: skipModes, timeout: 180_000 }, () => {
  it('makes each document folder 2770 in its one mkdir: killed where it would set the mode, none is left at 2750', async () => {
    const { dataDir, file } = await clinicWithPatient();
    // Killed (SIGKILL) the moment it would chmod a folder under documents/, as a power cut between the two steps.
    const upload = await runClinic(['upload-document', '--patient-id', 'P-1', '--file', file, '--data', dataDir], {
      umask: UMASK,
      env: { NODE_OPTIONS: `--import=${KILL_AT_CHMOD}` },
    });
    const modes = documentFolderModes(dataDir);
    assert.equal(Object.keys(modes).length, 2, JSON.stringify(modes));
    assert.deepEqual(Object.values(modes), ['2770', '2770'], `${JSON.stringify(modes)}; upload: ${upload.code} ${upload.stderr}`);
    assert.equal(upload.code, 0, 'it never needed the chmod');
  });

  it("repairs at serve's start a document folder a crash left at 2750 (and documents/ too), logs it, and check then finds nothing", async () => {
    const { dataDir, file } = await clinicWithPatient();
    assert.equal((await runClinic(['upload-document', '--patient-id', 'P-1', '--file', file, '--data', dataDir])).code, 0);
    const [patientFolder] = readdirSync(join(dataDir, 'documents'));
    // As the crash left them: what mkdir made under a umask of 027, setgid taken from the parent.
    chmodSync(join(dataDir, 'documents'), 0o2750);
    chmodSync(join(dataDir, 'documents', patientFolder!), 0o2750);
    const before = await runClinic(['check', '--data', dataDir]);
    assert.equal(before.code, 1);
    assert.match(before.stdout + before.stderr, /has mode 2750: its group cannot enter and write in it/);

    const serve = await startServeProcess(['--data', dataDir], { umask: UMASK });
    try {
      const repaired = serve.logLines.filter((line) => line.event === 'folder_mode_repaired');
      assert.deepEqual(
        repaired.map(({ folder, from, to }) => ({ folder, from, to })),
        [
          { folder: join(dataDir, 'documents'), from: '2750', to: '2770' },
          { folder: join(dataDir, 'documents', patientFolder!), from: '2750', to: '2770' },
        ],
      );
      assert.deepEqual(Object.values(documentFolderModes(dataDir)), ['2770', '2770']);
    } finally {
      serve.child.kill(STOP_SIGNAL);
      await serve.exited;
    }
    const after = await runClinic(['check', '--data', dataDir]);
    assert.equal(after.code, 0, after.stdout + after.stderr);
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openProgressBar } from '../../src/cli/progress-bar.js';
import type { CliIo } from '../../src/cli/io.js';
import { populatedDataDir } from '../helpers/backup-fixtures.js';
import { childEnvironment, programCommand, programPlatform, runClinic } from '../helpers/run-cli.js';
import { useDataDirs } from '../helpers/fixtures.js';

// Issue 42, finding 11: long work is no longer silent. A bar on stderr where it is a terminal
// (here a pseudo-terminal made by util-linux's `script`), nothing where it is not, and stdout
// (also --json) the same either way.

const root = fileURLToPath(new URL('../..', import.meta.url));
const tempDir = useDataDirs();

/** util-linux's `script`, named in full: the executable's runs put only the program on PATH. */
const SCRIPT = '/usr/bin/script';
/** The terminal tests need a Linux pseudo-terminal around the program; clinic.exe under Wine has none. */
const noTerminal =
  programPlatform === 'win32'
    ? 'a Windows console under Wine is no terminal this test can make'
    : !existsSync(SCRIPT) && `needs ${SCRIPT} (util-linux)`;

/** `text` quoted for sh. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `clinic <args>` with stderr on a pseudo-terminal and stdout into `stdoutFile`: resolves
 * with the exit code and what the terminal received (the program's stderr, as written).
 */
function runOnTerminal(args: readonly string[], stdoutFile: string): Promise<{ code: number; terminal: string }> {
  const command = [...programCommand(), ...args].map(shellQuoted).join(' ');
  // -e: script exits with the command's code; the log file is /dev/null, the terminal's output is script's stdout.
  const child = spawn(SCRIPT, ['-qec', `${command} > ${shellQuoted(stdoutFile)}`, '/dev/null'], {
    cwd: root,
    env: childEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let terminal = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (terminal += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, terminal }));
  });
}

/** What clears the bar's line: back to its start, then erase to the end of the line. */
const CLEAR = '\r\x1b[K';

/** The lines a terminal showed, each redraw (`\r`) as a line of its own, without the clearing sequence. */
const drawnLines = (terminal: string) =>
  terminal
    .split(/\r\n|\r|\n/)
    .map((line) => line.replaceAll('\x1b[K', ''))
    .filter((line) => line !== '');

describe('progress of long work (issue 42, 11)', { timeout: 180_000 }, () => {
  it(
    'draws a bar with its steps, bytes and files on a terminal during backup and restore, then clears it',
    { skip: noTerminal },
    async () => {
      const { dataDir } = populatedDataDir(tempDir());
      const file = join(tempDir(), 'backup.tar.gz');
      const stdoutFile = join(tempDir(), 'stdout.txt');
      const backup = await runOnTerminal(['backup', file, '--data', dataDir], stdoutFile);
      assert.equal(backup.code, 0, backup.terminal);
      const lines = drawnLines(backup.terminal);
      for (const step of ['1/4 copying the database', '2/4 reading the files', '3/4 writing the archive', '4/4 reading the archive back'])
        assert.ok(
          lines.some((line) => line.startsWith(`Backup ${step}`)),
          `no line for ${step}:\n${lines.join('\n')}`,
        );
      assert.ok(
        lines.some((line) =>
          /^Backup 3\/4 writing the archive \[[#.]+\] +[\d.]+ (B|KiB|MiB)\/[\d.]+ (B|KiB|MiB) +\d+\/\d+ files$/.test(line),
        ),
        lines.join('\n'),
      );
      assert.ok(
        lines.every((line) => [...line].length < 100),
        'within the desk',
      );
      // Cleared at the end: the last thing on the terminal is the erase of the bar's line.
      assert.ok(backup.terminal.endsWith(CLEAR), JSON.stringify(backup.terminal.slice(-40)));
      // stdout is the summary alone, with sizes in binary units.
      const summary = readFileSync(stdoutFile, 'utf8');
      assert.match(summary, /^backed up the database \([\d.]+ KiB\) and 2 document\(s\) to /);
      assert.ok(!summary.includes('\x1b') && !summary.includes('\r'), 'no bar on stdout');

      const restore = await runOnTerminal(['restore', file, '--data', join(tempDir(), 'restored')], stdoutFile);
      assert.equal(restore.code, 0, restore.terminal);
      const restored = drawnLines(restore.terminal);
      for (const step of ['1/3 unpacking the archive', '2/3 checking the database', '3/3 verifying the audit trail'])
        assert.ok(
          restored.some((line) => line.startsWith(`Restore ${step}`)),
          `no line for ${step}:\n${restored.join('\n')}`,
        );
      assert.ok(restore.terminal.endsWith(CLEAR), JSON.stringify(restore.terminal.slice(-40)));
      assert.match(readFileSync(stdoutFile, 'utf8'), /^restored the backup of /);
    },
  );

  it(
    'prints nothing but the summary where stderr is no terminal, and --json as before on a terminal too',
    { skip: noTerminal },
    async () => {
      const { dataDir } = populatedDataDir(tempDir());
      const piped = await runClinic(['backup', join(tempDir(), 'piped.tar.gz'), '--data', dataDir]);
      assert.equal(piped.code, 0, piped.stderr);
      assert.equal(piped.stderr, '');
      const stdoutFile = join(tempDir(), 'stdout.json');
      const json = await runOnTerminal(['backup', join(tempDir(), 'json.tar.gz'), '--json', '--data', dataDir], stdoutFile);
      assert.equal(json.code, 0, json.terminal);
      const summary = JSON.parse(readFileSync(stdoutFile, 'utf8')) as { documents: number; bytes: number };
      assert.equal(summary.documents, 2);
      assert.equal(typeof summary.bytes, 'number');
      const check = await runOnTerminal(['check', '--data', dataDir], stdoutFile);
      assert.equal(check.code, 0, check.terminal);
      assert.ok(drawnLines(check.terminal).some((line) => line.startsWith('Check 1/')));
      const checkedPiped = await runClinic(['check', '--data', dataDir]);
      assert.equal(checkedPiped.stderr, '');
    },
  );

  it('redraws at most every 100 ms, and at each new step', async () => {
    const written: string[] = [];
    const io: CliIo = {
      stdout: () => {},
      stderr: (text) => written.push(text),
      isTty: false,
      stderrColumns: () => Promise.resolve(80),
    };
    let now = 0;
    const bar = await openProgressBar(io, 'Backup', () => now);
    const report = (stepNumber: number, bytes: number) =>
      bar.listener!({ step: `step ${stepNumber}`, stepNumber, steps: 2, bytes, totalBytes: 1000, files: 0, totalFiles: 0 });
    for (let bytes = 0; bytes <= 1000; bytes += 10) {
      report(1, bytes);
      now += 1;
    }
    assert.equal(written.length, 2, 'one draw at the start, one after 100 ms');
    report(2, 0);
    assert.equal(written.length, 3, 'a new step is drawn at once');
    // 79 columns (one short of the terminal's 80): the label, a bar of 46, the counts.
    assert.equal(written[2], `\rBackup 2/2 step 2 [${'.'.repeat(46)}]  0 B/1000 B\x1b[K`);
    bar.finish();
    assert.equal(written[3], CLEAR);
  });
});

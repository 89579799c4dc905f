// The desk's own output and input (src/cli/io.ts): every printout of clinic-api-1.1.md's last section goes through it, and the PIN of 1.3.0's "Sessions" comes in through it.
import assert from 'node:assert/strict';
import { spawn, type StdioOptions } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** util-linux's `script`, which gives a command a pseudo-terminal: the only way a test can be a receptionist's terminal. */
const SCRIPT = '/usr/bin/script';
const noTerminal = !existsSync(SCRIPT) && `needs ${SCRIPT} (util-linux)`;

/** `text` quoted for sh. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The command line of a Node process that runs `code` (an ES module) with `processIo()` as `io`, from the repository's root. */
function ioProgram(code: string): string[] {
  const module = `import { processIo } from './src/cli/io.js';\nconst io = processIo();\n${code}`;
  return [process.execPath, '--import', 'tsx', '--input-type=module', '-e', module];
}

/** Starts `code` (ioProgram) as a child with `stdio`. */
function startIoProgram(code: string, stdio: StdioOptions) {
  const [command, ...args] = ioProgram(code);
  return spawn(command!, args, { cwd: root, stdio });
}

/** Collects what a child writes to its stderr, and its exit code. */
function endOf(child: ReturnType<typeof startIoProgram>): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** 4 MiB of numbered lines: far more than a pipe holds, so a writer must wait for its reader. */
const LONG_PRINTOUT_CODE = `const lines = Array.from({ length: 65536 }, (_, i) => String(i).padStart(63, '.') + '\\n');`;
const longPrintout = () => Array.from({ length: 65536 }, (_, i) => `${String(i).padStart(63, '.')}\n`).join('');

describe('the desk process as its output and input (processIo)', () => {
  const made: string[] = [];
  after(() => {
    for (const folder of made) rmSync(folder, { recursive: true, force: true });
  });

  it('writes all of a long printout to a non-blocking pipe, in order, waiting for its reader (EAGAIN)', async () => {
    // Reading process.stdout makes Node open the pipe non-blocking, as a parent or a library may leave it.
    const child = startIoProgram(`process.stdout;\n${LONG_PRINTOUT_CODE}\nio.stdout(lines.join(''));\nio.stderr('written\\n');`, [
      'ignore',
      'pipe',
      'pipe',
    ]);
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
    const { code, stderr } = await endOf(child);
    assert.equal(code, 0, stderr);
    assert.equal(stderr, 'written\n');
    const received = Buffer.concat(chunks).toString('utf8');
    assert.equal(received.length, 4 * 1024 * 1024, 'every byte arrived');
    assert.ok(received === longPrintout(), 'the lines arrived whole and in the order written');
  });

  it('stops writing, without failing, once the reader has gone (`clinic patient find a | head -1`)', async () => {
    const child = startIoProgram(`${LONG_PRINTOUT_CODE}\nfor (const line of lines) io.stdout(line);\nio.stderr('finished\\n');`, [
      'ignore',
      'pipe',
      'pipe',
    ]);
    // The reader takes the first chunk and goes, as `head -1` does.
    child.stdout!.once('data', () => child.stdout!.destroy());
    const { code, stderr } = await endOf(child);
    assert.equal(stderr, 'finished\n', 'the command ran to its end, nothing said of the closed pipe');
    assert.equal(code, 0);
  });

  it('reads all of standard input, however it arrives (login --pin-stdin, staff set-pin --pin-stdin)', async () => {
    const child = startIoProgram(`const text = await io.readInput();\nio.stderr(JSON.stringify(text));`, ['pipe', 'ignore', 'pipe']);
    child.stdin!.write('1234');
    child.stdin!.write('56\n654321\n');
    child.stdin!.end('654321\n');
    const { code, stderr } = await endOf(child);
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stderr), '123456\n654321\n654321\n');
  });

  it('has no terminal to ask on, and no terminal layout, where input and output are pipes', async () => {
    const child = startIoProgram(`io.stderr(JSON.stringify({ isTty: io.isTty, ask: typeof io.ask, askHidden: typeof io.askHidden }));`, [
      'pipe',
      'pipe',
      'pipe',
    ]);
    child.stdin!.end();
    const { code, stderr } = await endOf(child);
    assert.equal(code, 0, stderr);
    // Without ask, `clinic login` says there is no terminal (exit 2) instead of waiting for a name no one types.
    assert.deepEqual(JSON.parse(stderr), { isTty: false, ask: 'undefined', askHidden: 'undefined' });
  });

  it(
    'asks the PIN on the terminal without showing what is typed, and a name showing it; the answers stay off stdout',
    { skip: noTerminal, timeout: 60_000 },
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'clinic-io-'));
      made.push(folder);
      const stdoutFile = join(folder, 'stdout');
      const code = `const pin = await io.askHidden('PIN: ');\nconst name = await io.ask('Name: ');\nio.stdout(JSON.stringify({ pin, name, isTty: io.isTty }));`;
      // stdout goes to a file, stdin and stderr stay on the terminal: the questions must be asked on stderr.
      const command = `${ioProgram(code).map(shellQuoted).join(' ')} > ${shellQuoted(stdoutFile)}`;
      const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
      let terminal = '';
      let answered = 0;
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        terminal += chunk;
        // Each answer is typed once its question shows, as a person types it.
        if (answered === 0 && terminal.includes('PIN: ')) {
          answered = 1;
          child.stdin.write('482913\r');
        }
        if (answered === 1 && terminal.includes('Name: ')) {
          answered = 2;
          child.stdin.write('Anna Admin\r');
        }
      });
      const { code: exitCode, stderr } = await endOf(child);
      assert.equal(exitCode, 0, stderr + terminal);
      assert.doesNotMatch(terminal, /482913/, 'the PIN never showed on the terminal');
      assert.match(terminal, /Anna Admin/, 'the name showed as typed');
      // stdout was a file, not the terminal: no terminal layout for it.
      assert.deepEqual(JSON.parse(readFileSync(stdoutFile, 'utf8')), { pin: '482913', name: 'Anna Admin', isTty: false });
    },
  );
});

import { fstatSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isatty } from 'node:tty';

/** Where a command writes; tests pass their own to capture output. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal (affects nothing but layout). */
  isTty: boolean;
  /** The width of stderr when it is a terminal (where a progress bar is drawn), else undefined. */
  stderrColumns(): Promise<number | undefined>;
  /** All of standard input, read when a command asks for it (`login --pin-stdin`); absent: none given. */
  readInput?(): Promise<string>;
  /** Asks `prompt` on the terminal and reads one line without echoing it (a PIN); absent: no terminal to ask on. */
  askHidden?(prompt: string): Promise<string>;
  /** Asks `prompt` on the terminal and reads one line (a name); absent: no terminal to ask on. */
  ask?(prompt: string): Promise<string>;
}

/** The width of stderr's terminal, or undefined when stderr is none (the build loads node:tty only when a command asks: scripts/build.mjs, LAZY_MODULES). */
async function stderrColumns(): Promise<number | undefined> {
  if (!isatty(2)) return undefined;
  return process.stderr.columns || 80;
}

/** The descriptors whose reader has gone: nothing more is written to them. */
const closedReaders = new Set<number>();

/** One `SharedArrayBuffer` word to wait on: how a synchronous write waits out a full pipe. */
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to the file descriptor `fd`, synchronously. A pipe its reader has not yet
 * emptied (EAGAIN, when someone made it non-blocking) is waited out a millisecond at a time; a
 * pipe whose reader has gone (EPIPE) takes nothing more.
 */
function writeAll(fd: number, text: string): void {
  let bytes = Buffer.from(text, 'utf8');
  while (bytes.length > 0 && !closedReaders.has(fd)) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      // The reader went away (`clinic patient find a | head -1`): the rest is for no one.
      if (code === 'EPIPE') closedReaders.add(fd);
      else if (code === 'EAGAIN') Atomics.wait(pause, 0, 0, 1);
      else throw error;
    }
  }
}

/** Whether `fd` is a character device: a terminal (or /dev/null, whose layout no one reads). */
function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * The process's own output. On Linux a command writes to its file descriptors directly:
 * `process.stdout` would load Node's stream modules, a sixth of a desk command's start, to print
 * a few lines (writes to pipes, files and terminals are synchronous there anyway, so the order
 * of what the process writes stays as written). Windows keeps Node's streams, whose pipes and
 * consoles behave otherwise.
 */
export function processIo(): CliIo {
  const input = {
    readInput: readAllInput,
    ...(isCharacterDevice(0) && isCharacterDevice(2) ? terminalQuestions : {}),
  };
  if (process.platform === 'win32') {
    return {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      isTty: Boolean(process.stdout.isTTY),
      stderrColumns,
      ...input,
    };
  }
  return { stdout: (text) => writeAll(1, text), stderr: (text) => writeAll(2, text), isTty: isCharacterDevice(1), stderrColumns, ...input };
}

/**
 * All of standard input, through Node's stream: a synchronous read of descriptor 0 sees nothing of
 * a pipe on Windows (clinic.exe read an empty PIN under Wine).
 */
async function readAllInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Questions on the terminal, asked on stderr so that stdout stays the command's output (the build loads node:readline only when one is asked). */
const terminalQuestions = {
  ask: (prompt: string) => question(prompt, false),
  askHidden: (prompt: string) => question(prompt, true),
};

async function question(prompt: string, hidden: boolean): Promise<string> {
  const lines = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (hidden) {
    // What is typed is not echoed: readline writes through this, which shows the prompt only.
    const write = lines as unknown as { _writeToOutput(text: string): void };
    write._writeToOutput = (text: string) => {
      if (text.startsWith(prompt)) process.stderr.write(prompt);
    };
  }
  try {
    return await new Promise<string>((resolve) => lines.question(prompt, resolve));
  } finally {
    if (hidden) process.stderr.write('\n');
    lines.close();
  }
}

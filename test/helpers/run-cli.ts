import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { BUNDLE_DIGEST_FILE, sourceDigest } from '../../scripts/source-digest.mjs';
import { createPatientArgs } from './desk-args.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Whether the tests run against a built executable (CLINIC_BIN) rather than the source. */
export const testingExecutable = Boolean(process.env.CLINIC_BIN);

/** The system the program under test runs on: win32 for clinic.exe under Wine (npm run test:wine). */
export const programPlatform = process.env.CLINIC_BIN_PLATFORM ?? process.platform;

/**
 * The signal that asks a running `clinic serve` to stop: SIGTERM on Linux. Windows has no
 * SIGTERM (Wine, like Windows' TerminateProcess, ends the program at once); there the program is
 * asked as Ctrl+C asks it, which Wine delivers as SIGINT.
 */
export const STOP_SIGNAL: NodeJS.Signals = programPlatform === 'win32' ? 'SIGINT' : 'SIGTERM';

/**
 * Ends a process the program started, at once, by the pid the program logged: kill -9 on Linux;
 * under Wine the pid is Windows', so Windows' own taskkill /F ends it.
 */
export async function killProgramProcess(pid: number): Promise<void> {
  if (programPlatform !== 'win32') {
    process.kill(pid, 'SIGKILL');
    return;
  }
  const child = spawn(process.env.CLINIC_WINE_EXE!, ['taskkill.exe', '/F', '/PID', String(pid)], {
    env: { ...process.env, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    stdio: 'ignore',
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`taskkill /F /PID ${pid} exited ${code}`);
}

/**
 * The desk's output with its wrapped lines joined: a refusal wraps at 100 columns, its first line
 * too, continuing on lines indented by two spaces or more (docs/desk.md); a test that matches a
 * sentence matches it across the breaks.
 */
export function unwrapped(text: string): string {
  return text.replace(/\n {2,}/g, ' ');
}

/** `path` (absolute, of this machine) as the program names it: /tmp/x, or Z:\tmp\x under Wine. */
export function programPath(path: string): string {
  return programPlatform === 'win32' ? `Z:${path.replace(/\//g, '\\')}` : path;
}

/** How a test starts the program: its environment on top of this process's, and the umask it inherits. */
export interface SpawnOptions {
  env?: Record<string, string>;
  /** The umask the child starts with (a child inherits its parent's), e.g. 0o077 as an old systemd unit sets; this process's by default. */
  umask?: number;
  /**
   * A system user to run the program as, with its primary and supplementary groups (setpriv
   * --init-groups: Node's spawn sets a uid and gid but no supplementary groups); needs root
   * (system-users.ts). Its HOME is the `home` given.
   */
  user?: { name: string; home: string };
}

/**
 * The environment a child program gets: this process's without what would make a `clinic serve`
 * believe it runs as a systemd service (a test runner started by systemd passes INVOCATION_ID
 * on), then `extra`.
 */
export function childEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { INVOCATION_ID: _invocation, JOURNAL_STREAM: _journal, ...inherited } = process.env;
  return { ...inherited, ...extra };
}

let checkoutCommand: readonly string[] | undefined;

/**
 * The program of this checkout as a command line, run from the repository's root: `node
 * dist/clinic.js`, the source bundled, while the digest scripts/build.mjs wrote beside it matches
 * the sources as they are (npm test builds it first); else the TypeScript source through tsx. The
 * bundle starts in well under half of tsx's time (docs/development.md), and the suite starts several hundred processes.
 * `runtimeFlags` go to Node before the program.
 */
export function checkoutProgram(runtimeFlags: readonly string[] = []): [string, ...string[]] {
  checkoutCommand ??= bundleIsCurrent() ? ['dist/clinic.js'] : ['--import', 'tsx', 'src/main.ts'];
  return [process.execPath, ...runtimeFlags, ...checkoutCommand];
}

function bundleIsCurrent(): boolean {
  if (process.env.CLINIC_TEST_SOURCE === '1') return false;
  try {
    return readFileSync(BUNDLE_DIGEST_FILE, 'utf8').trim() === sourceDigest();
  } catch {
    return false;
  }
}

/** The program under test as a command line: CLINIC_BIN's executable (e.g. dist/clinic), or this checkout's (checkoutProgram). */
export function programCommand(): [string, ...string[]] {
  const bin = process.env.CLINIC_BIN;
  return bin ? [bin] : checkoutProgram();
}

/**
 * Starts `clinic <args>` as a child process, as a person would: this checkout's program
 * (checkoutProgram); with CLINIC_BIN set (e.g. to dist/clinic), that executable instead.
 */
export function spawnClinic(args: readonly string[], options: SpawnOptions = {}): ChildProcessWithoutNullStreams {
  const [command, ...prefix] = programCommand();
  const { user } = options;
  // setpriv takes the uid's groups from /etc/group; its primary group is named by its gid.
  const [program, programArgs] =
    user === undefined
      ? [command, [...prefix, ...args]]
      : [
          '/usr/bin/setpriv',
          ['--reuid', user.name, '--regid', primaryGroupOf(user.name), '--init-groups', '--', command, ...prefix, ...args],
        ];
  const env = childEnvironment({
    ...(user === undefined ? {} : { HOME: user.home, XDG_CACHE_HOME: join(user.home, '.cache') }),
    ...options.env,
  });
  const previous = options.umask === undefined ? undefined : process.umask(options.umask);
  try {
    return spawn(program, programArgs, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
}

/** How a test runs the program to its end: as spawnClinic starts it, with its input. */
export interface RunOptions extends SpawnOptions {
  input?: string;
  /** A child process even where the command could run in this one: the test is about separate processes (a race between them). */
  ownProcess?: boolean;
}

/**
 * The servers that run inside this test process (test-server.ts), each as whether it has a
 * request in flight. While one has, a desk command is spawned: in this process its synchronous
 * wait for the write lock would stop the event loop that the server's open commit group needs to
 * end (docs/development.md, "Desk tests").
 */
const serversInThisProcess = new Set<() => boolean>();

/** Counts a server started inside this process, `busy` saying whether it has a request in flight; call the returned function once it has stopped. */
export function serverRunsInThisProcess(busy: () => boolean): () => void {
  serversInThisProcess.add(busy);
  return () => serversInThisProcess.delete(busy);
}

/**
 * Whether `clinic <args>` runs inside this process, through the program's own entry with its
 * output captured (runCli, as src/main.ts calls it): only for the TypeScript source, from the
 * repository's root, with nothing a process alone shows (its environment, user or umask,
 * or a test about separate processes: `ownProcess`), no request in flight on a server in this
 * process, not a command that serves or supervises one until stopped (serve, autostart run), and
 * not when CLINIC_TEST_SPAWN=1 asks for every command spawned.
 */
function runsInThisProcess(args: readonly string[], options: RunOptions): boolean {
  return (
    !testingExecutable &&
    !LONG_RUNNING_COMMANDS.includes(args[0] ?? '') &&
    process.env.CLINIC_TEST_SPAWN !== '1' &&
    process.cwd() === root.replace(/\/$/, '') &&
    options.env === undefined &&
    options.user === undefined &&
    options.umask === undefined &&
    options.ownProcess !== true &&
    ![...serversInThisProcess].some((busy) => busy())
  );
}

/** The commands that run until stopped: always a process of their own. */
const LONG_RUNNING_COMMANDS: readonly string[] = ['serve', 'autostart'];

/** Runs `clinic <args>` in this process and collects what it writes, as a child's exit code and output. */
async function runInThisProcess(args: readonly string[], input: string | undefined): Promise<CliResult> {
  const { runCli } = await import('../../src/cli/program.js');
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    isTty: false,
    stderrColumns: async () => undefined,
    readInput: async () => input ?? '',
  });
  return { code, stdout, stderr };
}

/**
 * Runs `clinic <args>` to its end and collects its output: inside this process where nothing but
 * a process would differ (runsInThisProcess), else as a child (spawnClinic).
 */
export function runClinic(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  if (runsInThisProcess(args, options)) return runInThisProcess(args, options.input);
  // clinic.exe under Wine reads standard input only from a file its launcher writes first (scripts/wine-exe.sh).
  const wineInput = programPlatform === 'win32' && options.input !== undefined ? { env: { ...options.env, CLINIC_WINE_STDIN: '1' } } : {};
  const child = spawnClinic(args, { ...options, ...wineInput });
  // A program that reads no input may have exited, closing the pipe, before it is written to
  // (clinic.exe under Wine gets /dev/null): that is no failure of the command under test.
  child.stdin.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  child.stdin.end(options.input ?? '');
  return outcomeOf(child);
}

/** Creates the patient Eva Huber in the data directory `dataDir` with `clinic create-patient`, which must exit 0. */
export async function createPatientWithCli(dataDir: string): Promise<void> {
  const created = await runClinic([...createPatientArgs('Eva', 'Huber', 'eva@example.org', '+43 664 1234567'), '--data', dataDir]);
  assert.equal(created.code, 0, created.stderr);
}

/** Collects a child's output until it ends; never blocks, as the server under test may run in this process. */
function outcomeOf(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs another executable (say dist/clinic beside clinic.exe) to its end and collects its output. */
export function runExecutable(bin: string, args: readonly string[]): Promise<CliResult> {
  const child = spawn(bin, [...args], { cwd: root, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  return outcomeOf(child);
}

/** Runs this Node with `args` (say a TypeScript helper through tsx) in `cwd`, by default the repository, and collects its output. */
export function runNode(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [...args], {
    cwd: options.cwd ?? root,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  return outcomeOf(child);
}

/** A `clinic serve` child process, listening. */
export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** Base URL including /api/public/v1, from the "listening" log line. */
  baseUrl: string;
  /** Every JSON line logged on stdout so far (more arrive while it runs). */
  logLines: Record<string, unknown>[];
  /** Everything written so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit code and signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `clinic serve --port 0 <args>` and resolves once it logs that it is listening. */
export function startServeProcess(args: readonly string[], options: SpawnOptions = {}): Promise<ServeProcess> {
  const child = spawnClinic(['serve', '--port', '0', ...args], options);
  let stdout = '';
  let stderr = '';
  let pending = '';
  const logLines: Record<string, unknown>[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const event = JSON.parse(line) as Record<string, unknown>;
        logLines.push(event);
        if (event.event === 'listening') {
          resolve({ child, baseUrl: String(event.address), logLines, output: () => ({ stdout, stderr }), exited });
        }
      }
    });
    void exited.then(({ code }) => reject(new Error(`clinic serve exited (${code}) before listening:\n${stdout}${stderr}`)));
  });
}

/** The gid of a system user's primary group, as a number in text. */
function primaryGroupOf(name: string): string {
  return execFileSync('/usr/bin/id', ['-g', name], { encoding: 'utf8' }).trim();
}

/** The first folder from the checkout up to / that other users may not enter, if any. */
function folderClosedToOthers(): string | undefined {
  for (let folder = root; ; folder = dirname(folder)) {
    if ((statSync(folder).mode & 0o001) === 0) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/**
 * Why runAsNobody cannot run here, for a test's `skip`, or false: it needs root (to run a child
 * as uid 65534), the program from source on POSIX, and a checkout that other users may enter (a
 * clone in a folder of mode 0700, as `mktemp -d` makes, is not).
 */
export const nobodySkipReason: string | false = (() => {
  if (programPlatform === 'win32' || testingExecutable || process.getuid?.() !== 0) return 'needs root to run a child as uid 65534';
  const closed = folderClosedToOthers();
  return closed === undefined ? false : `uid 65534 may not enter ${closed}, so it cannot run the program from this checkout`;
})();

/**
 * Why the program cannot be run here as another user (SpawnOptions.user), for a test's `skip`, or
 * false: it needs root, POSIX, and a checkout other users may enter.
 */
export const otherUserSkipReason: string | false = (() => {
  if (programPlatform === 'win32' || process.getuid?.() !== 0) return 'needs root to run the program as another user';
  const closed = folderClosedToOthers();
  return closed === undefined ? false : `other users may not enter ${closed}, so they cannot run the program from this checkout`;
})();

/** Runs `clinic <args>` as uid/gid 65534 (nobody), as a user without root's reach; see nobodySkipReason. */
export function runAsNobody(args: readonly string[]): Promise<CliResult> {
  const [command, ...prefix] = programCommand();
  const child = spawn(command, [...prefix, ...args], { cwd: root, uid: 65534, gid: 65534, env: { ...process.env, HOME: '/tmp' } });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

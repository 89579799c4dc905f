import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fchmodSync, fstatSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_MODES, makeSharedFolderSync, mayChangeModeOf, SHARED_FILE_MODE } from '../db/file-modes.js';

/** Where `autostart run` keeps the server's log, inside the data directory. */
export const SERVER_LOG = join('logs', 'serve.log');

/** The log is started afresh past this size; the previous one is kept as serve.log.1. */
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

/** Waits before restarting a server that ended: 1 s, doubling to at most a minute. */
const FIRST_RESTART_DELAY_MS = 1000;
const LONGEST_RESTART_DELAY_MS = 60_000;
/** A server that ran this long before it ended starts again after the first delay. */
const HEALTHY_RUN_MS = 60_000;

/** serve's exit codes that another start would only repeat: a usage error, a refused start. */
const EXIT_USAGE = 2;
const EXIT_REFUSED = 1;

export interface SupervisorOptions {
  /** The program to start (this executable) and the arguments that make it `clinic serve`. */
  command: string;
  args: readonly string[];
  dataDir: string;
  /** Resolves when the supervisor is asked to stop (a signal, the end of the scheduled task). */
  stopRequested: Promise<string>;
}

/** Opens the log for appending, with the modes of the data directory's other files (file-modes.ts). */
function openLog(dataDir: string): number {
  const path = join(dataDir, SERVER_LOG);
  makeSharedFolderSync(join(dataDir, 'logs'));
  try {
    if (statSync(path).size > LOG_ROTATE_BYTES) renameSync(path, `${path}.1`);
  } catch {
    // No log yet.
  }
  const fd = openSync(path, 'a', SHARED_FILE_MODE);
  try {
    // A log of a user's own (a new one, or rotated) only: another's is left as it is.
    if (HAS_MODES && mayChangeModeOf(fstatSync(fd).uid)) fchmodSync(fd, SHARED_FILE_MODE);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

function logLine(fd: number, event: Record<string, unknown>): void {
  writeSync(fd, `${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);
}

/**
 * `clinic autostart run`: keeps `clinic serve` running, as the scheduled task on Windows (or any
 * service manager) starts it. The server's output goes to DATA/logs/serve.log, since a task has
 * no terminal. A server that crashes is started again after 1 s, doubling to a minute while it
 * keeps crashing; one that refuses to start (exit 1: another server holds the data directory, a
 * damaged database) is retried the same way, since the cause may pass; a usage error (exit 2)
 * ends the supervisor. Asked to stop, it asks the server to stop through the IPC channel, which
 * finishes requests in flight and closes the database (serve's own stop), and waits for it.
 * Resolves with the exit code the supervisor should end with.
 */
export async function superviseServer(options: SupervisorOptions): Promise<number> {
  const log = openLog(options.dataDir);
  let stopping = false;
  let child: ChildProcess | undefined;
  let delay = FIRST_RESTART_DELAY_MS;
  let wake: (() => void) | undefined;
  void options.stopRequested.then((signal) => {
    stopping = true;
    logLine(log, { event: 'autostart_stopping', signal });
    if (child?.connected) child.send({ stop: signal });
    else child?.kill();
    wake?.();
  });
  try {
    while (!stopping) {
      const started = Date.now();
      child = spawn(options.command, options.args, { stdio: ['ignore', log, log, 'ipc'], windowsHide: true });
      logLine(log, { event: 'autostart_started_server', pid: child.pid });
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
        child!.once('error', (error) => {
          logLine(log, { event: 'autostart_start_failed', error: error.message });
          resolve([null, null]);
        });
        child!.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
      });
      logLine(log, { event: 'autostart_server_ended', code, signal });
      if (stopping) break;
      if (code === EXIT_USAGE) return EXIT_USAGE;
      delay = Date.now() - started >= HEALTHY_RUN_MS ? FIRST_RESTART_DELAY_MS : delay;
      logLine(log, { event: 'autostart_restarting', in_ms: delay, reason: code === EXIT_REFUSED ? 'start refused' : 'server ended' });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      delay = Math.min(delay * 2, LONGEST_RESTART_DELAY_MS);
    }
    logLine(log, { event: 'autostart_stopped' });
    return 0;
  } finally {
    closeSync(log);
  }
}

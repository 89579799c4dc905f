/**
 * Servers under test as child processes pinned to one core (taskset), so that the load generator
 * on the other core never competes with them; their memory is read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readdirSync, readFileSync } from 'node:fs';
import { request, type Agent } from 'node:http';
import { createServer } from 'node:net';

/** The core the servers run on; the benchmark itself runs on the other (package.json, `bench`). */
export const SERVER_CORE = 0;

/** A process's resident memory now and at its peak, in MiB (/proc/<pid>/status VmRSS, VmHWM). */
export interface MemoryStatus {
  rssMb: number;
  peakRssMb: number;
  /** The part of VmRSS the process allocated itself (RssAnon). */
  anonMb: number;
  /** The part that maps files: the executable and libraries, shared and reclaimable (RssFile). */
  fileMb: number;
}

/** A server child process, ready for requests. */
export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  memory(): MemoryStatus;
  /** CPU seconds the process has used so far, user and system, every thread. */
  cpuSeconds(): number;
  /** SIGTERM, then SIGKILL after 15 s; resolves when the process has exited. */
  stop(): Promise<void>;
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Reads VmRSS and VmHWM of a live process. */
export function readMemory(pid: number): MemoryStatus {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return {
    rssMb: kilobytes('VmRSS') / 1024,
    peakRssMb: kilobytes('VmHWM') / 1024,
    anonMb: kilobytes('RssAnon') / 1024,
    fileMb: kilobytes('RssFile') / 1024,
  };
}

/** The kernel's clock ticks per second, in which /proc/<pid>/stat counts CPU time (USER_HZ). */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU seconds a live process has used, every thread: the sum of its threads' run time in
 * /proc/<pid>/task/<tid>/schedstat (nanoseconds), else utime + stime of /proc/<pid>/stat, which
 * counts in ticks of 10 ms: too coarse for a block of fifty requests of a millisecond.
 */
export function readCpuSeconds(pid: number): number {
  try {
    let nanoseconds = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended between the listing and the read.
      }
    }
    if (nanoseconds > 0) return nanoseconds / 1e9;
  } catch {
    // No schedstat (a kernel without it): the ticks below.
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after it are counted from its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Whether anything answers GET `path` on `port` (any status counts). */
function answers(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(true));
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Polls GET `path` every `intervalMs` until something answers (or the child exits: an error). */
export async function waitUntilAnswering(
  port: number,
  path: string,
  child: ChildProcess,
  options: { intervalMs?: number; timeoutMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (!(await answers(port, path))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before answering`);
    if (Date.now() > deadline) throw new Error(`nothing answered on port ${port} within the timeout`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}

/**
 * Starts `command` pinned to SERVER_CORE, its output appended to `logFile` (a server writes a
 * log line per request, which a pipe to this process would make the load generator read), and
 * waits until GET `readyPath` answers on `port`.
 */
export async function startPinnedServer(
  command: readonly string[],
  options: { port: number; readyPath: string; logFile: string; env?: Record<string, string> },
): Promise<ServerProcess> {
  const log = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn('taskset', ['-c', String(SERVER_CORE), ...command], {
      stdio: ['ignore', log, log],
      env: { ...process.env, ...options.env },
    });
  } finally {
    closeSync(log);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilAnswering(options.port, options.readyPath, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${command.join(' ')}: ${error instanceof Error ? error.message : String(error)}; see ${options.logFile}`);
  }
  // taskset execs the command, so the pid is the server's own.
  const pid = child.pid!;
  return {
    child,
    pid,
    port: options.port,
    origin: `http://127.0.0.1:${options.port}`,
    memory: () => readMemory(pid),
    cpuSeconds: () => readCpuSeconds(pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One request to the API (`path` after /api/public/v1) on a kept-alive connection: its status and body. */
export function sendApiRequest(agent: Agent, port: number, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `/api/public/v1${path}`,
        agent,
        headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': payload.length }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

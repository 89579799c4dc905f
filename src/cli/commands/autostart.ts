import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CommanderError, type Command } from 'commander';
import { acquireInstanceLock } from '../../db/instance-lock.js';
import { errors } from '../../errors.js';
import { SERVER_LOG, superviseServer } from '../../autostart/supervisor.js';
import { STAFF_GROUP, TASK_NAME, dataDirectoryAclArgs, taskFileBytes, taskXml } from '../../autostart/windows-task.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { stopRequested } from './serve.js';

/** serve's options that `autostart run` and `autostart install` pass on to it as given. */
const SERVE_OPTIONS = [
  { flags: '--host <address>', key: 'host', description: 'address to listen on (as clinic serve)' },
  { flags: '--port <port>', key: 'port', description: 'port to listen on (as clinic serve)' },
  {
    flags: '--allowed-host <name>',
    key: 'allowedHost',
    description: 'another name clients use, repeatable (as clinic serve)',
    repeatable: true,
  },
  {
    flags: '--allowed-origin <origin>',
    key: 'allowedOrigin',
    description: 'a web origin whose pages may call the API, repeatable (as clinic serve)',
    repeatable: true,
  },
  { flags: '--tls-cert <file>', key: 'tlsCert', description: 'serve HTTPS with this certificate (as clinic serve)', path: true },
  { flags: '--tls-key <file>', key: 'tlsKey', description: 'and this key (as clinic serve)', path: true },
  { flags: '--insecure-http', key: 'insecureHttp', description: 'plain HTTP on an address off this PC (as clinic serve)' },
  { flags: '--document-limit-mb <mb>', key: 'documentLimitMb', description: 'largest document upload in MiB (as clinic serve)' },
  { flags: '--smtp-url <url>', key: 'smtpUrl', description: 'SMTP server for notification emails (as clinic serve)' },
  { flags: '--smtp-from <address>', key: 'smtpFrom', description: 'sender of notification emails (as clinic serve)' },
  {
    flags: '--backup-dir <dir>',
    key: 'backupDir',
    description: 'write a verified backup into this folder on a schedule (as clinic serve)',
    path: true,
  },
  { flags: '--backup-every <duration>', key: 'backupEvery', description: 'time between backups (as clinic serve)' },
  { flags: '--backup-keep <n>', key: 'backupKeep', description: 'how many backups to keep (as clinic serve)' },
] as const satisfies readonly { flags: string; key: string; description: string; repeatable?: true; path?: true }[];

type ServiceOptions = CommonOptions & Partial<Record<(typeof SERVE_OPTIONS)[number]['key'], string | string[] | true>>;

function withServeOptions(command: Command): Command {
  for (const option of SERVE_OPTIONS) {
    if ('repeatable' in option)
      command.option(option.flags, option.description, (value: string, previous: string[] = []) => [...previous, value]);
    else command.option(option.flags, option.description);
  }
  return command;
}

/** The serve options given, as arguments again (`--port 8080`, each `--allowed-host` again, `--insecure-http`). */
function serveArguments(options: ServiceOptions): string[] {
  return SERVE_OPTIONS.flatMap((option) => {
    const value = options[option.key];
    const flag = option.flags.split(' ')[0]!;
    if (value === undefined) return [];
    if (value === true) return [flag];
    // The task runs in the data directory: a file or folder named relative to where install ran is made absolute.
    return (Array.isArray(value) ? value : [value]).flatMap((item) => [flag, 'path' in option ? resolve(item) : item]);
  });
}

/** This program's command line as another process starts it: the executable, or node and the script. */
function selfCommand(): { command: string; prefix: string[] } {
  // In the single executable process.argv[1] repeats the executable; under node it is the script.
  const script = process.argv[1];
  const isSea = script === undefined || resolve(script) === resolve(process.execPath);
  return isSea ? { command: process.execPath, prefix: [] } : { command: process.execPath, prefix: [...process.execArgv, script] };
}

/** Runs a Windows tool, failing with AUTOSTART_SETUP_FAILED and its words when it fails. */
function runTool(step: string, tool: string, args: readonly string[], { allowFailure = false } = {}): { ok: boolean; output: string } {
  const run = spawnSync(tool, args, { encoding: 'utf8', windowsHide: true });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim();
  const ok = run.status === 0;
  if (!ok && !allowFailure) throw errors.autostartSetupFailed(step, run.error?.message ?? output.split(/\r?\n/).slice(-3).join(' '));
  return { ok, output };
}

function requireWindows(command: string): void {
  if (process.platform !== 'win32') throw errors.autostartNeedsWindows(command);
}

/** Whether a clinic server holds the data directory's lock (it is running there). */
function serverRunning(dataDir: string): boolean {
  const lock = acquireInstanceLock(dataDir);
  lock?.release();
  return lock === undefined;
}

/** `clinic autostart run|install|uninstall|status`: the server as a Windows scheduled task (docs/install.md, "Install on a Windows PC"). */
export function registerAutostartCommands(program: Command, io: CliIo): void {
  const autostart = program
    .command('autostart')
    .description('start the server at boot, without anyone logged in, and keep it running (Windows)');

  withServeOptions(
    subcommand(autostart, 'run', 'keep clinic serve running, restarting it after a crash; what the scheduled task runs'),
  ).action(async (options: ServiceOptions) => {
    const dataDir = resolve(options.data);
    const { command, prefix } = selfCommand();
    const code = await superviseServer({
      command,
      args: [...prefix, 'serve', '--data', dataDir, ...serveArguments(options)],
      dataDir,
      stopRequested: stopRequested(),
    });
    if (code !== 0) {
      // serve refused its options (exit 2): starting it again would only repeat that.
      io.stderr(`error: clinic serve refused its options; its message is in ${join(dataDir, SERVER_LOG)}\n`);
      throw new CommanderError(code, 'clinic.autostart', 'serve refused its options');
    }
  });

  withServeOptions(
    subcommand(autostart, 'install', 'as an administrator: make the data directory private and start the server at every boot'),
  ).action((options: ServiceOptions) => {
    requireWindows('install');
    const dataDir = resolve(options.data);
    mkdirSync(dataDir, { recursive: true });
    const step = (text: string) => io.stdout(`${text}\n`);
    // An existing group is fine: a second install (a new version of clinic.exe) changes nothing else.
    const group = runTool('Creating the group', 'net', ['localgroup', STAFF_GROUP, '/add', '/comment:May run clinic desk commands'], {
      allowFailure: true,
    });
    step(group.ok ? `Created the local group "${STAFF_GROUP}".` : `The local group "${STAFF_GROUP}" exists.`);
    runTool('Setting who may open the data directory', 'icacls', dataDirectoryAclArgs(dataDir));
    step(`${dataDir}: SYSTEM, Administrators, LOCAL SERVICE and "${STAFF_GROUP}" only.`);
    // Desk commands in any new terminal find the data without --data.
    runTool('Setting CLINIC_DATA for every user', 'setx', ['CLINIC_DATA', dataDir, '/M']);
    step(`CLINIC_DATA=${dataDir} for every user (new terminals).`);
    const { command, prefix } = selfCommand();
    const xml = taskXml({
      executable: command,
      args: [...prefix, 'autostart', 'run', '--data', dataDir, ...serveArguments(options)],
      workingDirectory: dataDir,
    });
    const scratch = mkdtempSync(join(tmpdir(), 'clinic-task-'));
    try {
      const file = join(scratch, 'task.xml');
      writeFileSync(file, taskFileBytes(xml));
      runTool('Registering the scheduled task', 'schtasks', ['/Create', '/TN', TASK_NAME, '/XML', file, '/F']);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    step(`Scheduled task "${TASK_NAME}": starts at boot as LOCAL SERVICE, restarts the server after a crash.`);
    runTool('Starting the task', 'schtasks', ['/Run', '/TN', TASK_NAME]);
    step(`Started. The server's log: ${join(dataDir, SERVER_LOG)}`);
    step(`Staff who run desk commands: net localgroup "${STAFF_GROUP}" USERNAME /add`);
  });

  subcommand(autostart, 'uninstall', 'as an administrator: stop the server and remove its scheduled task (the data stays)').action(() => {
    requireWindows('uninstall');
    runTool('Stopping the task', 'schtasks', ['/End', '/TN', TASK_NAME], { allowFailure: true });
    runTool('Removing the scheduled task', 'schtasks', ['/Delete', '/TN', TASK_NAME, '/F']);
    io.stdout(`Removed the scheduled task "${TASK_NAME}". The data directory, CLINIC_DATA and the group "${STAFF_GROUP}" are kept.\n`);
  });

  subcommand(autostart, 'status', 'whether a server runs on the data directory, and (Windows) the scheduled task').action(
    (options: CommonOptions) => {
      const dataDir = resolve(options.data);
      const running = serverRunning(dataDir);
      let task: string | undefined;
      if (process.platform === 'win32') {
        const query = runTool('Reading the task', 'schtasks', ['/Query', '/TN', TASK_NAME, '/FO', 'LIST'], { allowFailure: true });
        // Status: Ready, Running or Disabled (in the system's language); no line at all from a schtasks that prints nothing.
        task = query.ok ? (/^[^:\r\n]*Status:\s*(.+)$/m.exec(query.output)?.[1]?.trim() ?? 'unknown') : 'not installed';
      }
      emit(io, options, { data_dir: dataDir, server_running: running, ...(task === undefined ? {} : { task }) }, () =>
        [
          `Data directory: ${dataDir}`,
          `Server: ${running ? 'running' : 'not running'}`,
          ...(task === undefined ? [] : [`Scheduled task "${TASK_NAME}": ${task}`]),
          '',
        ].join('\n'),
      );
    },
  );
}

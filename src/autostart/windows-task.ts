/**
 * What `clinic autostart install` sets up on Windows, as data: the scheduled task that runs the
 * server, and the access list of the data directory. Kept apart from the commands that apply it
 * (src/cli/commands/autostart.ts), so that both can be read and tested as they are.
 */

/** The scheduled task's name (Task Scheduler Library, top folder). */
export const TASK_NAME = 'Clinic';

/** The local group whose members may run desk commands (they read and write the data directory). */
export const STAFF_GROUP = 'Clinic Staff';

/**
 * Well-known SIDs, written `*S-1-...` for icacls: the same on every Windows, whatever its language
 * calls the accounts ("Administrators" is "Administratoren" on a German Windows).
 */
export const SID = {
  system: 'S-1-5-18',
  localService: 'S-1-5-19',
  administrators: 'S-1-5-32-544',
} as const;

/** Where the data lives unless told otherwise: %ProgramData%\Clinic (not the task's working directory). */
export function defaultWindowsDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.ProgramData || env.PROGRAMDATA || 'C:\\ProgramData'}\\Clinic`;
}

function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** One command-line argument quoted as Windows programs read them (CommandLineToArgvW's rules). */
export function windowsArgument(argument: string): string {
  if (argument !== '' && !/[\s"]/.test(argument)) return argument;
  // Backslashes are literal except before a quote: those, and the closing quote's, are doubled.
  return `"${argument.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

export interface TaskDefinition {
  /** clinic.exe's full path. */
  executable: string;
  /** The arguments after `clinic.exe`: `autostart run --data DIR ...`. */
  args: readonly string[];
  /** The working directory: the data directory, never C:\Windows\System32 (a task's default). */
  workingDirectory: string;
}

/**
 * The task as Task Scheduler's XML (schema 1.2, Windows 7 and later): started at boot with no one
 * logged in, as LOCAL SERVICE (no password, no rights beyond the data directory's), never stopped
 * for running long, on batteries or when idle, and started again by Task Scheduler if it fails
 * (the supervisor inside restarts a crashed server itself).
 */
export function taskXml(task: TaskDefinition): string {
  const commandLine = task.args.map(windowsArgument).join(' ');
  return `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>Clinic: the clinic's public API on this computer (clinic autostart run).</Description>
  </RegistrationInfo>
  <Triggers>
    <BootTrigger>
      <Enabled>true</Enabled>
    </BootTrigger>
  </Triggers>
  <Principals>
    <Principal id="Service">
      <UserId>${SID.localService}</UserId>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>true</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <IdleSettings>
      <StopOnIdleEnd>false</StopOnIdleEnd>
      <RestartOnIdle>false</RestartOnIdle>
    </IdleSettings>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <RunOnlyIfIdle>false</RunOnlyIfIdle>
    <WakeToRun>false</WakeToRun>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <Priority>5</Priority>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Service">
    <Exec>
      <Command>${xmlText(task.executable)}</Command>
      <Arguments>${xmlText(commandLine)}</Arguments>
      <WorkingDirectory>${xmlText(task.workingDirectory)}</WorkingDirectory>
    </Exec>
  </Actions>
</Task>
`;
}

/** The file schtasks reads: UTF-16 LE with a byte order mark, as the XML declaration says. */
export function taskFileBytes(xml: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml.replace(/\n/g, '\r\n'), 'utf16le')]);
}

/**
 * icacls's arguments giving the data directory (and everything made in it later) to SYSTEM and
 * Administrators in full, to LOCAL SERVICE (the task's account) and the staff group to read and
 * write, and to no one else: inherited entries (Users may read C:\ProgramData) are removed.
 */
export function dataDirectoryAclArgs(dataDir: string): string[] {
  return [
    dataDir,
    '/inheritance:r',
    '/grant:r',
    `*${SID.system}:(OI)(CI)F`,
    '/grant:r',
    `*${SID.administrators}:(OI)(CI)F`,
    '/grant:r',
    `*${SID.localService}:(OI)(CI)M`,
    '/grant:r',
    `${STAFF_GROUP}:(OI)(CI)M`,
  ];
}

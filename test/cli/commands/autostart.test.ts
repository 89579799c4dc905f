import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SERVER_LOG } from '../../../src/autostart/supervisor.js';
import { dataDirectoryAclArgs, taskFileBytes, taskXml, windowsArgument } from '../../../src/autostart/windows-task.js';
import { killProgramProcess, programPath, programPlatform, runClinic, spawnClinic, STOP_SIGNAL } from '../../helpers/run-cli.js';
import { useDataDirs } from '../../helpers/fixtures.js';

const newDir = useDataDirs();

/** The JSON lines of the service log so far. */
function logEvents(dataDir: string): Record<string, unknown>[] {
  const path = join(dataDir, SERVER_LOG);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const listening = (dataDir: string, count: number) =>
  waitFor(`listening #${count}`, () => {
    const lines = logEvents(dataDir).filter((e) => e.event === 'listening');
    return lines.length >= count ? lines[count - 1] : undefined;
  });

describe('clinic autostart run: the server kept running', { timeout: 180_000 }, () => {
  it('logs to DATA/logs/serve.log (the first key to its own file), starts a killed server again, and stops it cleanly when asked to stop', async () => {
    const dataDir = newDir();
    const supervisor = spawnClinic(['autostart', 'run', '--data', dataDir, '--port', '0']);
    const exited = new Promise<number | null>((resolve) => supervisor.on('exit', (code) => resolve(code)));
    try {
      const first = await listening(dataDir, 1);
      const health = await fetch(`${String(first.address)}/openapi.json`);
      assert.equal(health.status, 200);
      // The first key goes to its file, not to the log: the log names the file.
      const keyFile = join(dataDir, 'first-api-key.txt');
      assert.deepEqual(logEvents(dataDir).find((e) => e.event === 'first_api_key')?.file, programPath(keyFile));
      assert.match(readFileSync(keyFile, 'utf8'), /^clinic_[A-Za-z0-9_-]{43}$/m);
      assert.doesNotMatch(readFileSync(join(dataDir, SERVER_LOG), 'utf8'), /clinic_[A-Za-z0-9_-]{43}/);
      const started = logEvents(dataDir).filter((e) => e.event === 'autostart_started_server');
      assert.equal(started.length, 1);
      await killProgramProcess(Number(started[0]!.pid));
      const second = await listening(dataDir, 2);
      assert.equal((await fetch(`${String(second.address)}/openapi.json`)).status, 200);
      const events = logEvents(dataDir).map((e) => e.event);
      assert.ok(events.includes('autostart_restarting'), events.join(' '));
      const status = await runClinic(['autostart', 'status', '--data', dataDir, '--json']);
      const { task, ...server } = JSON.parse(status.stdout) as { task?: string };
      assert.deepEqual(server, { data_dir: programPath(dataDir), server_running: true });
      // The scheduled task's state, on Windows only (under Wine, whose schtasks prints nothing: unknown).
      assert.equal(task === undefined, programPlatform !== 'win32');
    } finally {
      supervisor.kill(STOP_SIGNAL);
    }
    assert.equal(await exited, 0);
    assert.deepEqual(
      logEvents(dataDir)
        .map((e) => e.event)
        .filter((e) => ['stopping', 'stopped', 'autostart_stopped'].includes(String(e)))
        .slice(-3),
      ['stopping', 'stopped', 'autostart_stopped'],
    );
    const status = await runClinic(['autostart', 'status', '--data', dataDir]);
    assert.match(status.stdout, /^Server: not running$/m);
  });

  it("passes serve's network options on: --allowed-host and --allowed-origin (each repeated) and --insecure-http", async () => {
    const dataDir = newDir();
    const supervisor = spawnClinic([
      'autostart',
      'run',
      '--data',
      dataDir,
      '--port',
      '0',
      '--allowed-host',
      'reception-pc',
      '--allowed-host',
      'clinic.praxis.lan',
      '--allowed-origin',
      'https://portal.example',
      '--insecure-http',
    ]);
    const exited = new Promise<number | null>((resolve) => supervisor.on('exit', (code) => resolve(code)));
    try {
      const started = await listening(dataDir, 1);
      assert.deepEqual(started.allowed_hosts, ['reception-pc', 'clinic.praxis.lan']);
      assert.deepEqual(started.allowed_origins, ['https://portal.example']);
      const answer = await fetch(`${String(started.address)}/health`, { headers: { Origin: 'https://portal.example' } });
      assert.equal(answer.headers.get('access-control-allow-origin'), 'https://portal.example');
    } finally {
      supervisor.kill(STOP_SIGNAL);
    }
    assert.equal(await exited, 0);
  });

  it('ends with exit 2, without restarting, when serve refuses its options', async () => {
    const dataDir = newDir();
    const run = await runClinic(['autostart', 'run', '--data', dataDir, '--port', 'many']);
    assert.equal(run.code, 2);
    assert.equal(logEvents(dataDir).filter((e) => e.event === 'autostart_started_server').length, 1);
  });

  it(
    'refuses install and uninstall outside Windows with AUTOSTART_NEEDS_WINDOWS',
    { skip: programPlatform === 'win32' && 'they run on Windows (under Wine: see docs/install.md)' },
    async () => {
      for (const command of ['install', 'uninstall']) {
        const run = await runClinic(['autostart', command, '--data', newDir()]);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /^error: AUTOSTART_NEEDS_WINDOWS: clinic autostart (install|uninstall) sets up a Windows scheduled task/m);
      }
    },
  );
});

describe('the Windows scheduled task, as data', () => {
  it('quotes arguments as Windows programs read them', () => {
    assert.equal(windowsArgument('serve'), 'serve');
    assert.equal(windowsArgument('C:\\Program Data\\Clinic'), '"C:\\Program Data\\Clinic"');
    assert.equal(windowsArgument('C:\\a b\\'), '"C:\\a b\\\\"');
    assert.equal(windowsArgument('say "hi"'), '"say \\"hi\\""');
    assert.equal(windowsArgument(''), '""');
  });

  it('starts at boot as LOCAL SERVICE, never times out, and runs autostart run in the data directory', () => {
    const xml = taskXml({
      executable: 'C:\\Program Files\\Clinic\\clinic.exe',
      args: ['autostart', 'run', '--data', 'C:\\ProgramData\\Clinic', '--smtp-url', 'smtp://a&b@mail'],
      workingDirectory: 'C:\\ProgramData\\Clinic',
    });
    assert.match(xml, /<BootTrigger>\s*<Enabled>true<\/Enabled>\s*<\/BootTrigger>/);
    assert.match(xml, /<UserId>S-1-5-19<\/UserId>/);
    assert.match(xml, /<ExecutionTimeLimit>PT0S<\/ExecutionTimeLimit>/);
    assert.match(xml, /<Command>C:\\Program Files\\Clinic\\clinic.exe<\/Command>/);
    assert.match(xml, /<Arguments>autostart run --data C:\\ProgramData\\Clinic --smtp-url smtp:\/\/a&amp;b@mail<\/Arguments>/);
    assert.match(xml, /<WorkingDirectory>C:\\ProgramData\\Clinic<\/WorkingDirectory>/);
    const bytes = taskFileBytes(xml);
    assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xfe]);
    assert.equal(bytes.subarray(2).toString('utf16le'), xml.replace(/\n/g, '\r\n'));
  });

  it('gives the data directory to SYSTEM, Administrators, LOCAL SERVICE and the staff group only, by SID where one exists', () => {
    assert.deepEqual(dataDirectoryAclArgs('C:\\ProgramData\\Clinic'), [
      'C:\\ProgramData\\Clinic',
      '/inheritance:r',
      '/grant:r',
      '*S-1-5-18:(OI)(CI)F',
      '/grant:r',
      '*S-1-5-32-544:(OI)(CI)F',
      '/grant:r',
      '*S-1-5-19:(OI)(CI)M',
      '/grant:r',
      'Clinic Staff:(OI)(CI)M',
    ]);
  });
});

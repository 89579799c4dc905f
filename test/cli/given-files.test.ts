import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { otherUserSkipReason, runClinic, startServeProcess, STOP_SIGNAL, unwrapped, type CliResult } from '../helpers/run-cli.js';
import { useDataDirs } from '../helpers/fixtures.js';

// Issue 42, finding 5: `restore` or `tls init` run as root on the server's data directory (which
// belongs to the user the server runs as) gave root the files they made, and the server then could
// not start. They now warn and give their files to the directory's owner and group. uid 65534
// (nobody) stands for the server's user; CI runs as root.

const NOBODY = 65534;
const backupFixture = fileURLToPath(new URL('../fixtures/release-1.2.0/backup.tar.gz', import.meta.url));

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
};

/** That `result` succeeded, warned that `command` ran as root and gave its files to nobody, and left nothing in `dataDir` that is not nobody's. */
function assertGivenToNobody(result: CliResult, dataDir: string, command: string): void {
  ok(result);
  const warning = `warning: clinic ran as root, and the data directory ${dataDir} belongs to uid 65534: the files ${command} made were given to 65534:65534`;
  assert.ok(unwrapped(result.stderr).includes(warning), result.stderr);
  assert.deepEqual(notNobodys(dataDir), []);
}

/** Every path under `dir` (itself left out) whose owner or group is not nobody's. */
function notNobodys(dir: string): string[] {
  const wrong: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    const info = lstatSync(join(dir, entry));
    if (info.uid !== NOBODY || info.gid !== NOBODY) wrong.push(`${entry} (${info.uid}:${info.gid})`);
  }
  return wrong;
}

describe("restore and tls init run as root on another user's data directory", { skip: otherUserSkipReason, concurrency: 1 }, () => {
  const newDir = useDataDirs();
  const home = () => {
    const dir = newDir();
    chownSync(dir, NOBODY, NOBODY);
    return dir;
  };
  /** A data directory as install.md makes it, owned by nobody, in a parent others may pass through. */
  const nobodysDataDir = () => {
    const parent = newDir();
    chmodSync(parent, 0o755);
    const dataDir = join(parent, 'data');
    mkdirSync(dataDir, { mode: 0o2770 });
    chownSync(dataDir, NOBODY, NOBODY);
    return dataDir;
  };
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
  });
  /** `clinic serve` as nobody on `dataDir`: it starts, and the log lines it wrote up to listening. */
  const serveAsNobody = async (dataDir: string) => {
    const serve = await startServeProcess(['--data', dataDir], { user: { name: 'nobody', home: home() } });
    const stop = async () => {
      if (serve.child.exitCode !== null) return;
      serve.child.kill(STOP_SIGNAL);
      await serve.exited;
    };
    stops.push(stop);
    await stop();
    return serve.logLines;
  };

  it('restore warns and gives everything it restored to the directory owner, whose server then starts', async () => {
    const dataDir = nobodysDataDir();
    assertGivenToNobody(await runClinic(['restore', backupFixture, '--data', dataDir]), dataDir, 'the restore');
    const logged = await serveAsNobody(dataDir);
    assert.ok(logged.some((line) => line.event === 'listening'));
  });

  it('tls init warns and gives the tls folder and its files to the directory owner, whose server then serves HTTPS', async () => {
    const dataDir = nobodysDataDir();
    ok(await runClinic(['init', '--data', dataDir]));
    execFileSync('/usr/bin/chown', ['-R', `${NOBODY}:${NOBODY}`, dataDir]);
    assertGivenToNobody(await runClinic(['tls', 'init', '--data', dataDir]), dataDir, 'tls init');
    const check = JSON.parse((await runClinic(['check', '--json', '--data', dataDir])).stdout) as {
      checks: { name: string; status: string; findings: string[] }[];
    };
    assert.deepEqual(
      check.checks.filter((each) => each.name === 'tls_files').map((each) => [each.status, each.findings]),
      [['ok', []]],
    );
    const logged = await serveAsNobody(dataDir);
    assert.ok(String(logged.find((line) => line.event === 'listening')?.address).startsWith('https://'), JSON.stringify(logged));
  });

  it('run by the directory owner itself, restore warns of nothing', async () => {
    const dataDir = newDir();
    const restored = await runClinic(['restore', backupFixture, '--data', join(dataDir, 'data')]);
    ok(restored);
    assert.doesNotMatch(restored.stderr, /warning: clinic ran as root/);
  });
});

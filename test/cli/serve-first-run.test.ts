import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { useDataDirs } from '../helpers/fixtures.js';
import { checkedFetch } from '../helpers/contract.js';
import { checkoutProgram, childEnvironment, programPath, programPlatform, startServeProcess, STOP_SIGNAL } from '../helpers/run-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const newDir = useDataDirs();

describe('clinic serve on an empty data directory', () => {
  it('creates the database and a first key, prints the key once, serves on 127.0.0.1 and stops on SIGTERM', async () => {
    const dataDir = newDir();
    const [node, ...program] = checkoutProgram();
    const child = spawn(node, [...program, 'serve', '--data', dataDir, '--port', '0'], {
      cwd: root,
      env: childEnvironment(),
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    try {
      const deadline = Date.now() + 20_000;
      while (!/"event":"listening"/.test(stdout)) {
        assert.ok(Date.now() < deadline, `server did not start: ${stdout}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const key = /(clinic_[A-Za-z0-9_-]{43})/.exec(stdout)?.[1];
      assert.ok(key, 'the first key is printed');
      const listening = JSON.parse(stdout.split('\n').find((line) => line.includes('"listening"'))!);
      assert.match(listening.address, /^http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1$/);
      assert.equal(listening.data_dir, dataDir);
      assert.equal(typeof listening.version, 'string');
      const response = await checkedFetch(`${listening.address}/doctors`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200);
      assert.equal(stdout.split(key).length - 1, 1, 'the key is printed exactly once');
    } finally {
      child.kill(STOP_SIGNAL);
    }
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    const requestLine = stdout.split('\n').find((line) => line.includes('"event":"request"'));
    assert.ok(requestLine, 'requests are logged');
    assert.deepEqual(Object.keys(JSON.parse(requestLine)).sort(), [
      'duration_ms',
      'event',
      'method',
      'request_id',
      'route',
      'status',
      'time',
    ]);
  });

  it('as a systemd service (INVOCATION_ID set), writes the first key to a 0600 file in the data directory and logs its path, never the key', async () => {
    const dataDir = newDir();
    const serve = await startServeProcess(['--data', dataDir], {
      env: { INVOCATION_ID: '0123456789abcdef0123456789abcdef' },
      umask: 0o002,
    });
    let key: string | undefined;
    try {
      const file = join(dataDir, 'first-api-key.txt');
      if (programPlatform !== 'win32') assert.equal((statSync(file).mode & 0o777).toString(8), '600');
      const text = readFileSync(file, 'utf8');
      assert.match(text, /first API key.*\n.*delete this file/);
      key = /^(clinic_[A-Za-z0-9_-]{43})$/m.exec(text)?.[1];
      assert.ok(key, text);
      const logged = serve.logLines.find((line) => line.event === 'first_api_key');
      assert.equal(logged?.file, programPath(file));
      const response = await checkedFetch(`${serve.baseUrl}/doctors`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200);
    } finally {
      serve.child.kill(STOP_SIGNAL);
    }
    assert.equal((await serve.exited).code, 0);
    const { stdout, stderr } = serve.output();
    assert.doesNotMatch(stdout + stderr, /clinic_[A-Za-z0-9_-]{43}/);
    assert.equal(existsSync(join(dataDir, 'first-api-key.txt')), true);

    // The next start creates no key, and warns while the file is still there.
    const again = await startServeProcess(['--data', dataDir], { env: { INVOCATION_ID: 'x' } });
    again.child.kill(STOP_SIGNAL);
    await again.exited;
    assert.doesNotMatch(again.output().stdout, /clinic_/);
    assert.match(again.output().stderr, /"event":"warning","warning":".*first-api-key\.txt still holds the first API key/);
  });
});

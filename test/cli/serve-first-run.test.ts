import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { useDataDirs } from '../helpers/fixtures.js';
import { checkedFetch } from '../helpers/contract.js';
import { STOP_SIGNAL } from '../helpers/run-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const newDir = useDataDirs();

describe('clinic serve on an empty data directory', () => {
  it('creates the database and a first key, prints the key once, serves on 127.0.0.1 and stops on SIGTERM', async () => {
    const dataDir = newDir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--data', dataDir, '--port', '0'], { cwd: root });
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
});

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { programPath, programPlatform, runClinic, startServeProcess, STOP_SIGNAL } from '../helpers/run-cli.js';
import { useDataDirs } from '../helpers/fixtures.js';

const newDir = useDataDirs();

describe('clinic serve: start-up', { timeout: 180_000 }, () => {
  it('creates the first API key only once it listens: a start on a busy port creates none, the next prints one', async () => {
    const dataDir = newDir();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const failed = await runClinic(['serve', '--port', String(port), '--data', dataDir]);
      assert.equal(failed.code, 1);
      assert.match(
        failed.stderr,
        new RegExp(`^error: CANNOT_LISTEN: The server cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`, 'm'),
      );
      assert.doesNotMatch(failed.stdout, /clinic_/);
    } finally {
      busy.close();
    }
    const keys = await runClinic(['api-key', 'list', '--json', '--data', dataDir]);
    assert.deepEqual(JSON.parse(keys.stdout), []);
    const serve = await startServeProcess(['--data', dataDir]);
    serve.child.kill(STOP_SIGNAL);
    await serve.exited;
    assert.match(serve.output().stdout, /one was created\. Store it now; it is not shown again:\n\n {2}clinic_/);
  });

  it(
    'makes a new data directory 2770 and the database, its WAL and SHM and the lock 0660 under a umask of 077, and warns of a data directory others can enter',
    { skip: programPlatform === 'win32' && 'no file modes on Windows' },
    async () => {
      const dataDir = join(newDir(), 'data');
      const serve = await startServeProcess(['--data', dataDir], { umask: 0o077 });
      try {
        assert.equal((statSync(dataDir).mode & 0o7777).toString(8), '2770');
        for (const name of ['clinic.db', 'clinic.db-wal', 'clinic.db-shm', 'clinic.lock']) {
          assert.equal((statSync(join(dataDir, name)).mode & 0o7777).toString(8), '660', name);
        }
        assert.ok(serve.logLines.some((line) => line.event === 'database_created'));
        assert.doesNotMatch(serve.output().stderr, /"event":"warning"/);
      } finally {
        serve.child.kill(STOP_SIGNAL);
        await serve.exited;
      }
      chmodSync(dataDir, 0o2775);
      const again = await startServeProcess(['--data', dataDir]);
      again.child.kill(STOP_SIGNAL);
      await again.exited;
      assert.match(
        again.output().stderr,
        /"event":"warning","warning":"the data directory .* has mode 2775: other users of this computer can reach patient data; run chmod 2770 on it"/,
      );
    },
  );

  it('logs a client that disconnects mid-body as an aborted request, not an error', async () => {
    const dataDir = newDir();
    const serve = await startServeProcess(['--data', dataDir]);
    const url = new URL(serve.baseUrl);
    const key = /(clinic_[A-Za-z0-9_-]{43})/.exec(serve.output().stdout)![1]!;
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${url.pathname}/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"first_name":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    const deadline = Date.now() + 5000;
    while (!serve.logLines.some((line) => line.event === 'request_aborted') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    serve.child.kill(STOP_SIGNAL);
    await serve.exited;
    const aborted = serve.logLines.find((line) => line.event === 'request_aborted');
    assert.equal(aborted?.status, 499);
    assert.equal(aborted?.route, '/api/public/v1/patients');
    assert.doesNotMatch(serve.output().stderr, /unhandled_error/);
  });

  it('removes an upload left in tmp/ by a crashed writer at start, however young', async () => {
    const dataDir = newDir();
    assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
    mkdirSync(join(dataDir, 'tmp'));
    writeFileSync(join(dataDir, 'tmp', '0b0c6a38-5d4b-4b51-9f5e-3d6f0a1e2c4d.999999999.part'), Buffer.alloc(1000));
    const serve = await startServeProcess(['--data', dataDir]);
    serve.child.kill(STOP_SIGNAL);
    await serve.exited;
    assert.deepEqual(readdirSync(join(dataDir, 'tmp')), []);
    assert.ok(
      serve.logLines.some((line) => line.event === 'uploads_recovered' && line.removed_abandoned === 1 && line.removed_bytes === 1000),
    );
  });
});

describe('commands on a data directory without a database', () => {
  it('refuses, naming the path and how to point at the right one, and creates nothing', async () => {
    const missing = join(newDir(), 'mistyped');
    const result = await runClinic([
      'create-patient',
      '--first-name',
      'A',
      '--last-name',
      'B',
      '--email',
      'a@b.example',
      '--mobile',
      '1',
      '--data',
      missing,
    ]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      // Within 100 columns: what to do follows the refusal, a sentence a line.
      `error: NO_DATABASE: There is no clinic database at ${programPath(join(missing, 'clinic.db'))}.\n  Point at the clinic's data directory with --data DIR or the CLINIC_DATA environment variable;\n    \`clinic init --data DIR\` creates a new, empty one.\n`,
    );
    assert.equal(existsSync(missing), false);
    const json = await runClinic(['doctor', 'list', '--json', '--data', missing]);
    assert.equal(JSON.parse(json.stderr).detail.code, 'NO_DATABASE');
  });
});

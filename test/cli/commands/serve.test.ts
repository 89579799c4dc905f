import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient } from '../../helpers/builders.js';
import { addInterruptedUpload } from '../../helpers/module-tables.js';
import { programPath, runClinic, type ServeProcess, startServeProcess, STOP_SIGNAL } from '../../helpers/run-cli.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { checkedFetch } from '../../helpers/contract.js';

const newDir = useDataDirs();

/** A new data directory with an API key made by the CLI. */
async function dataDirWithKey(): Promise<{ dataDir: string; key: string }> {
  const dataDir = newDir();
  assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
  const created = await runClinic(['api-key', 'create', '--name', 'test', '--json', '--data', dataDir]);
  assert.equal(created.code, 0, created.stderr);
  return { dataDir, key: (JSON.parse(created.stdout) as { key: string }).key };
}

/** Resolves once `predicate` holds, polling; fails after `ms`. */
async function waitUntil(predicate: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function hasLogged(serve: ServeProcess, event: string): boolean {
  return serve.logLines.some((line) => line.event === event);
}

describe('clinic serve', { timeout: 180_000 }, () => {
  it('logs a start line with address, data directory and version, and one line per request without patient data', async () => {
    const { dataDir, key } = await dataDirWithKey();
    const serve = await startServeProcess(['--data', dataDir]);
    try {
      const listening = serve.logLines.find((line) => line.event === 'listening');
      assert.match(String(listening?.address), /^http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1$/);
      assert.equal(listening?.data_dir, programPath(dataDir));
      assert.equal(listening?.version, '1.3.0');
      const created = await checkedFetch(`${serve.baseUrl}/patients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'log-test-1' },
        body: JSON.stringify(buildPatient({ first_name: 'Zebedee', email: 'zebedee@example.org' })),
      });
      assert.equal(created.status, 201);
      await waitUntil(() => serve.logLines.some((line) => line.request_id === 'log-test-1'));
      const line = serve.logLines.find((l) => l.request_id === 'log-test-1');
      assert.deepEqual(Object.keys(line ?? {}).sort(), ['duration_ms', 'event', 'method', 'request_id', 'route', 'status', 'time']);
      assert.equal(line?.method, 'POST');
      assert.equal(line?.route, '/api/public/v1/patients');
      assert.equal(line?.status, 201);
      assert.equal(typeof line?.duration_ms, 'number');
      assert.doesNotMatch(serve.output().stdout + serve.output().stderr, /Zebedee|zebedee@example\.org/);
    } finally {
      serve.child.kill(STOP_SIGNAL);
      await serve.exited;
    }
  });

  it('on SIGTERM stops accepting, finishes the request in flight, closes the database and exits 0 within 10 s', async () => {
    const { dataDir, key } = await dataDirWithKey();
    const serve = await startServeProcess(['--data', dataDir]);
    const body = Buffer.from(JSON.stringify(buildPatient({ last_name: 'InFlight' })));
    const url = new URL(`${serve.baseUrl}/patients`);
    // A request whose body is only half sent: in flight when the signal arrives.
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = request(
        url,
        {
          method: 'POST',
          agent: false,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      outgoing.on('error', reject);
      outgoing.write(body.subarray(0, 20));
      setTimeout(() => {
        const signalled = Date.now();
        serve.child.kill(STOP_SIGNAL);
        void waitUntil(() => hasLogged(serve, 'stopping'))
          .then(async () => {
            // Stopped accepting: a new connection is refused while the old request is still open.
            await assert.rejects(checkedFetch(`${serve.baseUrl}/payment-methods`));
            outgoing.end(body.subarray(20));
            const { code, signal } = await serve.exited;
            assert.equal(signal, null);
            assert.equal(code, 0);
            assert.ok(Date.now() - signalled < 10_000, 'exited within 10 s');
          })
          .catch(reject);
      }, 300);
    });
    const { status, text } = await answer;
    assert.equal(status, 201, text);
    const { code } = await serve.exited;
    assert.equal(code, 0);
    assert.ok(hasLogged(serve, 'stopped'));
    // Closed cleanly: the last connection checkpointed the WAL into clinic.db and removed it.
    assert.equal(existsSync(join(dataDir, 'clinic.db-wal')), false);
    const checked = await runClinic(['check', '--data', dataDir]);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  });

  it('cuts a client that never finishes its request, and still exits 0 within 10 s', async () => {
    const { dataDir, key } = await dataDirWithKey();
    const serve = await startServeProcess(['--data', dataDir]);
    const stuck = request(new URL(`${serve.baseUrl}/patients`), {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': 1000 },
    });
    const cut = new Promise<void>((resolve) => stuck.on('error', () => resolve()).on('close', () => resolve()));
    stuck.write('{"first_name":');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalled = Date.now();
    serve.child.kill(STOP_SIGNAL);
    const { code } = await serve.exited;
    assert.equal(code, 0);
    assert.ok(Date.now() - signalled < 10_000, `exited after ${Date.now() - signalled} ms`);
    await cut;
  });

  it('exits 0 on SIGINT too', async () => {
    const { dataDir } = await dataDirWithKey();
    const serve = await startServeProcess(['--data', dataDir]);
    serve.child.kill('SIGINT');
    assert.deepEqual(await serve.exited, { code: 0, signal: null });
  });

  it('refuses a second server on the same data directory with a clear message, and the first keeps serving', async () => {
    const { dataDir } = await dataDirWithKey();
    const first = await startServeProcess(['--data', dataDir]);
    try {
      const second = await runClinic(['serve', '--port', '0', '--data', dataDir]);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /SERVER_ALREADY_RUNNING: Another clinic server is already running on the data directory/);
      assert.equal((await checkedFetch(`${first.baseUrl}/payment-methods`)).status, 200);
    } finally {
      first.child.kill(STOP_SIGNAL);
      await first.exited;
    }
  });

  it('starts again after a server was killed outright: the lock dies with its process', async () => {
    const { dataDir } = await dataDirWithKey();
    const first = await startServeProcess(['--data', dataDir]);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startServeProcess(['--data', dataDir]);
    second.child.kill(STOP_SIGNAL);
    assert.equal((await second.exited).code, 0);
  });

  it('before it listens, puts in place the file of an upload a crash cut off after its row was committed', async () => {
    const { dataDir } = await dataDirWithKey();
    const db = openDatabase(dataDir);
    const patientId = createPatient(db, buildPatient()).id;
    const content = Buffer.from('bytes of an upload whose rename never happened');
    const documentId = addInterruptedUpload(db, dataDir, patientId, content);
    db.close();
    const serve = await startServeProcess(['--data', dataDir]);
    try {
      const recovered = serve.logLines.find((line) => line.event === 'uploads_recovered');
      assert.deepEqual({ completed: recovered?.completed, removed: recovered?.removed_abandoned }, { completed: 1, removed: 0 });
      assert.deepEqual(readFileSync(join(dataDir, 'documents', patientId, documentId)), content);
    } finally {
      serve.child.kill(STOP_SIGNAL);
      await serve.exited;
    }
    const check = await runClinic(['check', '--data', dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it('lets CLI commands run beside it: a key created meanwhile works at once', async () => {
    const { dataDir } = await dataDirWithKey();
    const serve = await startServeProcess(['--data', dataDir]);
    try {
      const created = await runClinic(['api-key', 'create', '--name', 'beside', '--json', '--data', dataDir]);
      assert.equal(created.code, 0, created.stderr);
      const key = (JSON.parse(created.stdout) as { key: string }).key;
      const doctors = await checkedFetch(`${serve.baseUrl}/doctors`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(doctors.status, 200);
    } finally {
      serve.child.kill(STOP_SIGNAL);
      await serve.exited;
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertMatchesContract } from '../../helpers/contract.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { corsHeaderNames, rawRequest, refusalCode } from '../../helpers/raw-request.js';
import { runClinic, startServeProcess, STOP_SIGNAL, type ServeProcess } from '../../helpers/run-cli.js';

// clinic-api-1.2.md, "Network": `serve --allowed-host NAME` and `--allowed-origin ORIGIN`, and CORS.

const PORTAL = 'https://portal.example:8443';

/** A data directory with a key of every scope, made by the program's own commands. */
async function dataDirWithKey(dataDir: string): Promise<string> {
  assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
  const created = await runClinic(['api-key', 'create', '--name', 'portal', '--json', '--data', dataDir]);
  assert.equal(created.code, 0, created.stderr);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

describe('serve --allowed-host and --allowed-origin', () => {
  const newDataDir = useDataDirs();
  let serve: ServeProcess;
  let key: string;
  const url = (path: string) => `${serve.baseUrl}${path}`;
  const port = () => new URL(serve.baseUrl).port;

  before(async () => {
    const dataDir = newDataDir();
    key = await dataDirWithKey(dataDir);
    serve = await startServeProcess([
      '--data',
      dataDir,
      '--allowed-host',
      'Reception-PC',
      '--allowed-host',
      '192.168.1.20',
      '--allowed-origin',
      PORTAL,
      '--allowed-origin',
      'http://intranet.local/',
    ]);
  });
  after(async () => {
    serve.child.kill(STOP_SIGNAL);
    await serve.exited;
  });

  it('says in its start-up log which names and origins it allows', () => {
    const listening = serve.logLines.find((line) => line.event === 'listening');
    assert.deepEqual(listening?.allowed_hosts, ['reception-pc', '192.168.1.20']);
    assert.deepEqual(listening?.allowed_origins, [PORTAL, 'http://intranet.local']);
  });

  it('answers the allowed names and still refuses others', async () => {
    for (const host of [`reception-pc:${port()}`, 'RECEPTION-PC', `192.168.1.20:${port()}`, `localhost:${port()}`]) {
      assert.equal((await rawRequest(serve.baseUrl, { method: 'GET', path: '/health', headers: { Host: host } })).status, 200, host);
    }
    for (const host of [`reception-pc.evil.example:${port()}`, `192.168.1.21:${port()}`, 'evil.example']) {
      const answer = await rawRequest(serve.baseUrl, { method: 'GET', path: '/health', headers: { Host: host } });
      assert.equal(refusalCode(answer), 'HOST_NOT_ALLOWED', host);
    }
  });

  it("gives an allowed origin's answers, refusals included, Access-Control-Allow-Origin and Vary: Origin", async () => {
    const cases = [
      { path: '/doctors', key: true, status: 200 },
      { path: '/doctors', key: false, status: 401 },
      { path: '/patients/7d8f3a52-1f7e-4b8e-9a51-2b9cbd3f0c11', key: true, status: 404 },
      { path: '/health', key: false, status: 200 },
    ];
    for (const { path, key: withKey, status } of cases) {
      for (const origin of [PORTAL, 'http://intranet.local']) {
        const answer = await rawRequest(serve.baseUrl, {
          method: 'GET',
          path,
          headers: { Origin: origin, ...(withKey ? { Authorization: `Bearer ${key}` } : {}) },
        });
        assertMatchesContract('GET', url(path), answer);
        assert.equal(answer.status, status, `${origin} ${path}`);
        assert.equal(answer.headers['access-control-allow-origin'], origin);
        assert.match(String(answer.headers.vary), /\bOrigin\b/);
        // The page can read the paging, version and request id headers too.
        assert.match(String(answer.headers['access-control-expose-headers']), /\bLink\b.*\bX-Request-Id\b/);
      }
    }
  });

  it('answers an allowed origin however its case is written, naming it as browsers write it', async () => {
    const answer = await rawRequest(serve.baseUrl, { method: 'GET', path: '/health', headers: { Origin: 'HTTPS://Portal.Example:8443' } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['access-control-allow-origin'], PORTAL);
  });

  it('treats the origin exactly: another scheme, port or host of an allowed origin is refused', async () => {
    for (const origin of [
      'http://portal.example:8443',
      'https://portal.example',
      'https://portal.example:8444',
      'https://evil.portal.example:8443',
    ]) {
      const answer = await rawRequest(serve.baseUrl, {
        method: 'GET',
        path: '/doctors',
        headers: { Origin: origin, Authorization: `Bearer ${key}` },
      });
      assert.equal(answer.status, 403, origin);
      assert.equal(refusalCode(answer), 'ORIGIN_NOT_ALLOWED', origin);
      assert.deepEqual(corsHeaderNames(answer.headers), []);
    }
  });

  it("answers an allowed origin's preflight with 204, the path's methods and the operation's request headers, without a key", async () => {
    const answer = await rawRequest(serve.baseUrl, {
      method: 'OPTIONS',
      path: '/invoices/7d8f3a52-1f7e-4b8e-9a51-2b9cbd3f0c11/payments',
      headers: {
        Origin: PORTAL,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key',
      },
    });
    assert.equal(answer.status, 204);
    assert.equal(answer.text, '');
    assert.equal(answer.headers['access-control-allow-origin'], PORTAL);
    assert.match(String(answer.headers.vary), /\bOrigin\b/);
    assert.ok(String(answer.headers['access-control-allow-methods']).split(/, */).includes('POST'));
    const allowed = String(answer.headers['access-control-allow-headers']).toLowerCase().split(/, */);
    for (const header of ['authorization', 'content-type', 'idempotency-key']) assert.ok(allowed.includes(header), header);

    const patch = await rawRequest(serve.baseUrl, {
      method: 'OPTIONS',
      path: '/patients/7d8f3a52-1f7e-4b8e-9a51-2b9cbd3f0c11',
      headers: { Origin: PORTAL, 'Access-Control-Request-Method': 'PATCH' },
    });
    assert.equal(patch.status, 204);
    assert.deepEqual(String(patch.headers['access-control-allow-methods']).split(/, */).sort(), ['GET', 'HEAD', 'PATCH']);
    assert.ok(String(patch.headers['access-control-allow-headers']).toLowerCase().split(/, */).includes('if-match'));
  });

  it('refuses a preflight for a path the API does not have (404) or a method the path does not take (405)', async () => {
    const missing = await rawRequest(serve.baseUrl, {
      method: 'OPTIONS',
      path: '/no-such-path',
      headers: { Origin: PORTAL, 'Access-Control-Request-Method': 'GET' },
    });
    assert.equal(missing.status, 404);
    assert.equal(refusalCode(missing), 'NOT_FOUND');
    const method = await rawRequest(serve.baseUrl, {
      method: 'OPTIONS',
      path: '/doctors',
      headers: { Origin: PORTAL, 'Access-Control-Request-Method': 'DELETE' },
    });
    assert.equal(method.status, 405);
    assert.equal(refusalCode(method), 'METHOD_NOT_ALLOWED');
  });

  it('lets an allowed origin write, and the write is there', async () => {
    const answer = await rawRequest(serve.baseUrl, {
      method: 'POST',
      path: '/patients',
      headers: { Origin: PORTAL, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ first_name: 'Anna', last_name: 'Huber', email: 'anna@example.org', mobile: '+43 664 1234567' }),
    });
    assertMatchesContract('POST', url('/patients'), answer);
    assert.equal(answer.status, 201);
    assert.equal(answer.headers['access-control-allow-origin'], PORTAL);
  });
});

describe('serve refuses allowed names and origins it cannot use', () => {
  const newDataDir = useDataDirs();

  for (const [option, value] of [
    ['--allowed-origin', '*'],
    ['--allowed-origin', 'https://portal.example/app'],
    ['--allowed-origin', 'ftp://portal.example'],
    ['--allowed-origin', 'portal.example'],
    ['--allowed-origin', 'https://user:pw@portal.example'],
    ['--allowed-host', 'reception-pc:8080'],
    ['--allowed-host', 'evil.example/x'],
    ['--allowed-host', ''],
  ] as const) {
    it(`exits 2 for ${option} "${value}", starting nothing`, async () => {
      const result = await runClinic(['serve', '--port', '0', '--data', newDataDir(), option, value]);
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(result.stderr, new RegExp(option));
      assert.doesNotMatch(result.stdout, /"listening"/);
    });
  }

  it('reads CLINIC_ALLOWED_HOSTS and CLINIC_ALLOWED_ORIGINS, comma-separated, and refuses a bad one with exit 2', async () => {
    const dataDir = newDataDir();
    const serve = await startServeProcess(['--data', dataDir], {
      env: { CLINIC_ALLOWED_HOSTS: 'reception-pc, clinic.local', CLINIC_ALLOWED_ORIGINS: PORTAL },
    });
    try {
      const listening = serve.logLines.find((line) => line.event === 'listening');
      assert.deepEqual(listening?.allowed_hosts, ['reception-pc', 'clinic.local']);
      const answer = await rawRequest(serve.baseUrl, { method: 'GET', path: '/health', headers: { Host: 'clinic.local', Origin: PORTAL } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['access-control-allow-origin'], PORTAL);
    } finally {
      serve.child.kill(STOP_SIGNAL);
      await serve.exited;
    }
    const bad = await runClinic(['serve', '--port', '0', '--data', newDataDir()], {
      env: { CLINIC_ALLOWED_ORIGINS: 'https://a.example/x' },
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /CLINIC_ALLOWED_ORIGINS/);
  });
});

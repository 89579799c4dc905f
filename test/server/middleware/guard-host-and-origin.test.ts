import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { describe, it } from 'node:test';
import { assertMatchesContract } from '../../helpers/contract.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { corsHeaderNames, rawRequest, refusalCode, type RawResponse } from '../../helpers/raw-request.js';

// clinic-api-1.2.md, "Network": a server started as `clinic serve` is by default (127.0.0.1, no
// --allowed-host, no --allowed-origin). The options themselves: test/server/connections/network-policy.test.ts.

describe('the Host and Origin checks of a default server', () => {
  const server = useTestServer();
  const port = () => new URL(server.baseUrl).port;
  const url = (path: string) => `${server.baseUrl}${path}`;
  /** GET `path` with these headers and the full key unless `key` is false; checked against the OpenAPI document. */
  async function get(path: string, headers: Record<string, string>, key = true): Promise<RawResponse> {
    const answer = await rawRequest(server.baseUrl, {
      method: 'GET',
      path,
      headers: { ...(key ? { Authorization: `Bearer ${server.key}` } : {}), ...headers },
    });
    assertMatchesContract('GET', url(path), answer);
    return answer;
  }

  it('answers a Host naming this PC, with or without the port, in any case', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `LocalHost:${port()}`, `[::1]:${port()}`, 'localhost', '127.0.0.1']) {
      const answer = await get('/doctors', { Host: host });
      assert.equal(answer.status, 200, `Host: ${host}`);
      assert.deepEqual(corsHeaderNames(answer.headers), []);
    }
  });

  it('refuses any other Host with 403 HOST_NOT_ALLOWED, before the key, the route and everything else', async () => {
    const rebound = [
      `evil.example:${port()}`,
      'evil.example',
      `localhost.evil.example:${port()}`,
      `127.0.0.1.nip.io:${port()}`,
      `127.0.0.2:${port()}`,
      `evil.example@localhost:${port()}`,
      `localhost.:${port()}`,
      `[::2]:${port()}`,
    ];
    for (const host of rebound) {
      for (const [path, key] of [
        ['/doctors', true],
        ['/doctors', false],
        ['/patients/not-a-uuid', true],
        ['/no-such-path', false],
        ['/health', false],
        ['/openapi.json', false],
        ['/docs', false],
      ] as const) {
        const answer = await rawRequest(server.baseUrl, {
          method: 'GET',
          path,
          headers: { Host: host, ...(key ? { Authorization: `Bearer ${server.key}` } : {}) },
        });
        assert.equal(answer.status, 403, `Host: ${host} ${path}`);
        assert.equal(refusalCode(answer), 'HOST_NOT_ALLOWED', `Host: ${host} ${path}`);
        assert.deepEqual(corsHeaderNames(answer.headers), []);
        assert.equal(answer.headers['cache-control'], 'no-store', `Host: ${host} ${path}`);
      }
    }
  });

  it('refuses a request without any Host (HTTP/1.0) with 403 HOST_NOT_ALLOWED', async () => {
    const socket = createConnection({ host: '127.0.0.1', port: Number(port()) });
    socket.end(`GET /api/public/v1/health HTTP/1.0\r\n\r\n`);
    let text = '';
    for await (const chunk of socket) text += String(chunk);
    assert.match(text, /^HTTP\/1\.[01] 403 /);
    assert.match(text, /"HOST_NOT_ALLOWED"/);
  });

  it('changes nothing when it refuses a Host', async () => {
    const before = (JSON.parse((await get('/patients', {})).text) as unknown[]).length;
    const answer = await rawRequest(server.baseUrl, {
      method: 'POST',
      path: '/patients',
      headers: { Host: 'evil.example', Authorization: `Bearer ${server.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ first_name: 'Eve', last_name: 'Rebinding', email: 'eve@example.org', mobile: '+43 664 1234567' }),
    });
    assert.equal(answer.status, 403);
    assert.equal((JSON.parse((await get('/patients', {})).text) as unknown[]).length, before);
  });

  it('answers its own origin (as the docs page sends it) without CORS headers', async () => {
    for (const origin of [`http://127.0.0.1:${port()}`, `HTTP://127.0.0.1:${port()}`]) {
      const answer = await get('/doctors', { Origin: origin });
      assert.equal(answer.status, 200, origin);
      assert.deepEqual(corsHeaderNames(answer.headers), [], origin);
    }
    // The same page opened as http://localhost:PORT sends that as Host and as Origin.
    const local = await get('/doctors', { Host: `localhost:${port()}`, Origin: `http://localhost:${port()}` });
    assert.equal(local.status, 200);
    assert.deepEqual(corsHeaderNames(local.headers), []);
  });

  it('refuses every other Origin with 403 ORIGIN_NOT_ALLOWED, before the key and the route, and without CORS headers', async () => {
    const foreign = [
      'https://evil.example',
      `http://127.0.0.1:${Number(port()) + 1}`,
      `https://127.0.0.1:${port()}`,
      `http://localhost:${port()}`,
      'http://127.0.0.1',
      'null',
      'file://',
      'not an origin',
    ];
    for (const origin of foreign) {
      for (const [path, key] of [
        ['/doctors', true],
        ['/doctors', false],
        ['/no-such-path', false],
        ['/health', false],
      ] as const) {
        const answer = await rawRequest(server.baseUrl, {
          method: 'GET',
          path,
          headers: { Origin: origin, ...(key ? { Authorization: `Bearer ${server.key}` } : {}) },
        });
        assert.equal(answer.status, 403, `Origin: ${origin} ${path}`);
        assert.equal(refusalCode(answer), 'ORIGIN_NOT_ALLOWED', `Origin: ${origin} ${path}`);
        assert.deepEqual(corsHeaderNames(answer.headers), [], `Origin: ${origin} ${path}`);
      }
    }
  });

  it("refuses what a page of another site embeds or fetches without CORS (Sec-Fetch-Site, no Origin), not a person's visit or a program", async () => {
    for (const site of ['cross-site', 'same-site']) {
      for (const [mode, dest] of [
        ['no-cors', 'image'],
        ['no-cors', 'script'],
        ['navigate', 'iframe'],
      ]) {
        const answer = await rawRequest(server.baseUrl, {
          method: 'GET',
          path: '/doctors',
          headers: { 'Sec-Fetch-Site': site, 'Sec-Fetch-Mode': mode, 'Sec-Fetch-Dest': dest },
        });
        assert.equal(refusalCode(answer), 'ORIGIN_NOT_ALLOWED', `${site} ${mode} ${dest}`);
      }
    }
    // A person following another site's link to the docs page, or typing the address; the docs page's own requests.
    for (const headers of [
      { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
      { 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
      { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' },
    ]) {
      const answer = await rawRequest(server.baseUrl, { method: 'GET', path: '/docs', headers });
      assert.equal(answer.status, 200, JSON.stringify(headers));
    }
  });

  it('counts no 401 of such a request against the address: 40 of them from 127.0.0.2 leave it unthrottled', async () => {
    const embedded = { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' };
    for (let i = 0; i < 40; i++) {
      const answer = await rawRequest(server.baseUrl, { method: 'GET', path: '/doctors', headers: embedded, localAddress: '127.0.0.2' });
      assert.equal(answer.status, 403);
    }
    const own = await rawRequest(server.baseUrl, {
      method: 'GET',
      path: '/doctors',
      headers: { Authorization: `Bearer ${server.key}` },
      localAddress: '127.0.0.2',
    });
    assert.equal(own.status, 200);
  });

  it('checks the Host before the Origin', async () => {
    const answer = await rawRequest(server.baseUrl, {
      method: 'GET',
      path: '/health',
      headers: { Host: 'evil.example', Origin: 'http://evil.example' },
    });
    assert.equal(refusalCode(answer), 'HOST_NOT_ALLOWED');
  });

  it('answers no preflight: without an allowed origin an OPTIONS is 405 as before, or 403 for a foreign page', async () => {
    const own = await rawRequest(server.baseUrl, {
      method: 'OPTIONS',
      path: '/patients',
      headers: { Origin: `http://127.0.0.1:${port()}`, 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(own.status, 405);
    assert.deepEqual(corsHeaderNames(own.headers), []);
    const foreign = await rawRequest(server.baseUrl, {
      method: 'OPTIONS',
      path: '/patients',
      headers: {
        Origin: 'https://evil.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    assert.equal(foreign.status, 403);
    assert.equal(refusalCode(foreign), 'ORIGIN_NOT_ALLOWED');
    assert.deepEqual(corsHeaderNames(foreign.headers), []);
  });

  it('leaves requests without an Origin, as integrations and curl send them, as they were', async () => {
    const answer = await get('/doctors', {});
    assert.equal(answer.status, 200);
    assert.deepEqual(corsHeaderNames(answer.headers), []);
    assert.equal(answer.headers.vary, undefined);
  });
});

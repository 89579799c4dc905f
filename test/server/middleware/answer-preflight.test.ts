import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useTestServer } from '../../helpers/fixtures.js';
import { corsHeaderNames, rawRequest, refusalCode } from '../../helpers/raw-request.js';

/**
 * The CORS preflight of an allowed origin (clinic-api-1.2.md, "Network": "its preflight OPTIONS is
 * 204 with the methods and the request headers the operation takes"): what a browser is told it may
 * send to each operation, without a key, and the 404 and 405 any other request gets.
 */

const PORTAL = 'https://portal.example:8443';
const SOME_ID = '7d8f3a52-1f7e-4b8e-9a51-2b9cbd3f0c11';

describe('server: answering the preflight of an allowed origin', () => {
  const server = useTestServer({ allowedOrigins: [PORTAL] });

  /** A browser's preflight from the portal for `method` on `path`; no key, as browsers send none. */
  const preflight = (path: string, method: string, origin = PORTAL) =>
    rawRequest(server.baseUrl, {
      method: 'OPTIONS',
      path,
      headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'authorization' },
    });

  it("answers 204, without a key, with the path's methods and exactly the request headers of the operation asked for", async () => {
    const payment = await preflight(`/invoices/${SOME_ID}/payments`, 'POST');
    assert.equal(payment.status, 204);
    assert.equal(payment.text, '');
    assert.deepEqual(
      ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age'].map(
        (name) => payment.headers[name],
      ),
      [PORTAL, 'POST', 'Authorization, Content-Type, Idempotency-Key, X-Request-Id', '600'],
    );
    const patient = await preflight(`/patients/${SOME_ID}`, 'PATCH');
    assert.deepEqual(
      [patient.status, patient.headers['access-control-allow-methods'], patient.headers['access-control-allow-headers']],
      [204, 'GET, HEAD, PATCH', 'Authorization, Content-Type, If-Match, X-Request-Id'],
    );
  });

  it('offers If-None-Match where an answer can be revalidated, and no Authorization where no key is read', async () => {
    const download = await preflight(`/patients/${SOME_ID}/documents/${SOME_ID}`, 'GET');
    assert.equal(download.headers['access-control-allow-headers'], 'Authorization, If-None-Match, X-Request-Id');
    const description = await preflight('/openapi.json', 'GET');
    assert.equal(description.headers['access-control-allow-headers'], 'If-None-Match, X-Request-Id');
    const lookup = await preflight('/document-types', 'get');
    assert.deepEqual(
      [lookup.status, lookup.headers['access-control-allow-methods'], lookup.headers['access-control-allow-headers']],
      [204, 'GET, HEAD', 'X-Request-Id'],
    );
  });

  it('lets no cache give one preflight the answer of another: it varies with the origin and what is asked', async () => {
    const answer = await preflight('/patients', 'POST');
    const varies = String(answer.headers.vary)
      .split(/, */)
      .map((name) => name.toLowerCase());
    for (const name of ['origin', 'access-control-request-method', 'access-control-request-headers'])
      assert.ok(varies.includes(name), `Vary: ${answer.headers.vary}`);
  });

  it('refuses a preflight for a path the API does not have with 404, and for a method the path does not take with 405 and Allow', async () => {
    const missing = await preflight('/no-such-path', 'GET');
    assert.deepEqual([missing.status, refusalCode(missing)], [404, 'NOT_FOUND']);
    const method = await preflight('/doctors', 'DELETE');
    assert.deepEqual([method.status, refusalCode(method), method.headers.allow], [405, 'METHOD_NOT_ALLOWED', 'GET, HEAD']);
    assert.equal(method.headers['access-control-allow-methods'], undefined);
  });

  it('leaves an OPTIONS that is no preflight, or comes from no allowed origin, to the routes', async () => {
    const plain = await rawRequest(server.baseUrl, { method: 'OPTIONS', path: '/patients', headers: { Origin: PORTAL } });
    assert.deepEqual([plain.status, refusalCode(plain)], [405, 'METHOD_NOT_ALLOWED']);
    assert.equal(plain.headers['access-control-allow-methods'], undefined);
    const ownPage = await preflight('/patients', 'POST', `http://127.0.0.1:${new URL(server.baseUrl).port}`);
    assert.deepEqual([ownPage.status, corsHeaderNames(ownPage.headers)], [405, []]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setModuleEnabled } from '../../../src/domain/settings.js';
import { nextPageLink } from '../../../src/server/api/mount-operations.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';

/**
 * How each operation is mounted from its declaration (decisions.md §1, "Order of checks";
 * clinic-api-1.1.md, "Pagination"; clinic-api-1.2.md, "Caching"): exactly its path, its checks
 * in the specified order, its status, and a page's Link to the next.
 */

describe('server: mounting the operations', () => {
  const server = useTestServer();

  it("links the next page by the request's own path and every other parameter as sent, `after` replaced", () => {
    const path = '/api/public/v1/patients';
    assert.equal(
      nextPageLink(path, 'q=m%C3%BCller&limit=2', 'WyJ4Il0'),
      '</api/public/v1/patients?q=m%C3%BCller&limit=2&after=WyJ4Il0>; rel="next"',
    );
    assert.equal(nextPageLink(path, 'after=old&limit=2&%61fter=older', 'c'), '</api/public/v1/patients?limit=2&after=c>; rel="next"');
    assert.equal(nextPageLink(path, '', 'a+b/c='), '</api/public/v1/patients?after=a%2Bb%2Fc%3D>; rel="next"');
    // A parameter whose name cannot be decoded is no `after`: it is kept as it came.
    assert.equal(nextPageLink(path, 'q=x&%E0%A4%A=1&&', 'c'), '</api/public/v1/patients?q=x&%E0%A4%A=1&after=c>; rel="next"');
  });

  it('answers a page as a bare array, with a Link while more follow and none on the last page', async () => {
    for (const last_name of ['Aigner', 'Berger', 'Czerny']) createTestPatient(server.db, { last_name });
    const first = await server.request('GET', '/patients?limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.map((patient: { last_name: string }) => patient.last_name),
      ['Aigner', 'Berger'],
    );
    const next = /^<\/api\/public\/v1\/patients\?limit=2&after=([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '');
    assert.ok(next, `Link: ${first.headers.get('link')}`);
    const last = await server.request('GET', `/patients?limit=2&after=${next[1]}`);
    assert.deepEqual(
      last.body.map((patient: { last_name: string }) => patient.last_name),
      ['Czerny'],
    );
    assert.equal(last.headers.get('link'), null);
  });

  it('serves each path exactly as declared: another case or a trailing slash is no such path', async () => {
    assert.equal((await server.request('GET', '/doctors')).status, 200);
    for (const path of ['/DOCTORS', '/Doctors', '/doctors/']) {
      const response = await server.request('GET', path);
      assert.deepEqual([response.status, response.body.detail.code], [404, 'NOT_FOUND'], path);
    }
    const method = await server.request('PUT', '/doctors');
    assert.deepEqual([method.status, method.body.detail.code, method.headers.get('allow')], [405, 'METHOD_NOT_ALLOWED', 'GET, HEAD']);
  });

  it('checks a request in the order of decisions.md §1: key, scope, module, content type, size, then the body', async () => {
    const invoice = createTestInvoice(server.db);
    const path = `/invoices/${invoice.id}/payments`;
    const narrowKey = server.createKey(['lookups:read']);
    const pay = (key: string | null, contentType: string, body: string) =>
      server.request('POST', path, { key, rawBody: body, headers: { 'content-type': contentType } });
    const outcome = async (answer: ReturnType<typeof pay>) => {
      const { status, body } = await answer;
      return [status, Array.isArray(body.detail) ? body.detail[0].type : (body.detail?.code ?? body.invoice_status)];
    };
    setModuleEnabled(server.db, 'payments', false);
    try {
      assert.deepEqual(await outcome(pay(null, 'text/plain', 'x')), [401, 'UNAUTHENTICATED']);
      assert.deepEqual(await outcome(pay(narrowKey, 'text/plain', 'x')), [403, 'FORBIDDEN']);
      assert.deepEqual(await outcome(pay(server.key, 'text/plain', 'x')), [403, 'MODULE_DISABLED']);
    } finally {
      setModuleEnabled(server.db, 'payments', true);
    }
    assert.deepEqual(await outcome(pay(server.key, 'text/plain', 'x'.repeat(5 * 1024 * 1024))), [415, 'UNSUPPORTED_MEDIA_TYPE']);
    assert.deepEqual(await outcome(pay(server.key, 'application/json', `"${'x'.repeat(4 * 1024 * 1024)}"`)), [413, 'PAYLOAD_TOO_LARGE']);
    assert.deepEqual(await outcome(pay(server.key, 'application/json', '{"amount": 0}')), [422, 'greater_than']);
    assert.deepEqual(await outcome(pay(server.key, 'application/json', JSON.stringify(buildPayment()))), [200, 'partially_paid']);
  });

  it('marks every answer of an operation that takes a key no-store, refusals included, and leaves the public lookups cacheable', async () => {
    const keyed = [await server.request('GET', '/doctors'), await server.request('GET', '/doctors', { key: 'cls_wrong' })];
    assert.deepEqual(
      keyed.map((response) => [response.status, response.headers.get('cache-control')]),
      [
        [200, 'no-store'],
        [401, 'no-store'],
      ],
    );
    const lookup = await server.request('GET', '/document-types');
    assert.deepEqual([lookup.status, lookup.headers.get('cache-control')], [200, null]);
  });
});

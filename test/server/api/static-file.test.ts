import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Koa from 'koa';
import { ifNoneMatchNames, sendStaticFile, staticFile } from '../../../src/server/api/static-file.js';
import type { ClinicState } from '../../../src/server/api/state.js';
import { useKoaApp } from '../../helpers/fixtures.js';

/**
 * The files the server makes once and serves as they are, the OpenAPI document and the docs page
 * (clinic-api-1.1.md's ETag and If-None-Match rule, RFC 9110 §13.1.2): revalidated, never kept
 * for a time, and a 304 to a client whose copy is current.
 */

describe('server: static files and If-None-Match', () => {
  const DOCUMENT = staticFile('application/json', '{"openapi":"3.1.0","info":{"title":"Klinik – API"}}');
  const PAGE = staticFile('text/html; charset=utf-8', '<!doctype html><title>Docs</title>', {
    'Content-Security-Policy': "default-src 'self'",
  });
  const served = useKoaApp(() => new Koa<ClinicState>().use((ctx) => sendStaticFile(ctx, ctx.path === '/docs' ? PAGE : DOCUMENT)));

  it("tells whether If-None-Match names a file's ETag: compared weakly, in a list, or `*`", () => {
    const etag = '"q1w2e3"';
    const cases: [string | undefined, boolean][] = [
      ['"q1w2e3"', true],
      ['W/"q1w2e3"', true],
      ['"zzz", W/"q1w2e3" ,"yyy"', true],
      ['*', true],
      ['"zzz"', false],
      ['"q1w2e3', false],
      ['q1w2e3', false],
      ['', false],
      [undefined, false],
    ];
    for (const [header, names] of cases) assert.equal(ifNoneMatchNames(header, etag), names, String(header));
    assert.equal(ifNoneMatchNames('"q1w2e3"', 'W/"q1w2e3"'), true, 'a weak ETag of its own is compared weakly too');
  });

  it('gives a file an ETag of its content: the same bytes the same tag, other bytes another, text as UTF-8', () => {
    const again = staticFile('application/json', '{"openapi":"3.1.0","info":{"title":"Klinik – API"}}');
    const changed = staticFile('application/json', '{"openapi":"3.1.0","info":{"title":"Klinik - API"}}');
    assert.equal(again.etag, DOCUMENT.etag);
    assert.notEqual(changed.etag, DOCUMENT.etag);
    assert.match(DOCUMENT.etag, /^"[A-Za-z0-9_-]{27}"$/);
    assert.equal(DOCUMENT.body.toString('utf8'), '{"openapi":"3.1.0","info":{"title":"Klinik – API"}}');
    const bytes = new Uint8Array([0, 1, 2, 3, 4, 5]).subarray(2, 5);
    const asset = staticFile('font/woff2', bytes);
    assert.deepEqual([...asset.body], [2, 3, 4]);
    assert.equal(asset.body.buffer, bytes.buffer, 'the bytes were copied');
  });

  it('serves the file with its type and ETag, to be revalidated rather than kept, not sniffed, with its own headers', async () => {
    const response = await fetch(`${served.base}/docs`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '<!doctype html><title>Docs</title>');
    assert.deepEqual(
      ['content-type', 'etag', 'cache-control', 'x-content-type-options', 'content-security-policy'].map((name) =>
        response.headers.get(name),
      ),
      ['text/html; charset=utf-8', PAGE.etag, 'no-cache', 'nosniff', "default-src 'self'"],
    );
  });

  it('answers 304 without a body to an If-None-Match naming its ETag, whatever Cache-Control the client sends, and 200 to another', async () => {
    for (const ifNoneMatch of [DOCUMENT.etag, `W/${DOCUMENT.etag}`, `"old", ${DOCUMENT.etag}`, '*']) {
      const response = await fetch(`${served.base}/openapi.json`, {
        headers: { 'if-none-match': ifNoneMatch, 'cache-control': 'no-cache' },
      });
      assert.equal(response.status, 304, ifNoneMatch);
      assert.equal(await response.text(), '', ifNoneMatch);
      assert.deepEqual([response.headers.get('etag'), response.headers.get('cache-control')], [DOCUMENT.etag, 'no-cache']);
    }
    const stale = await fetch(`${served.base}/openapi.json`, { headers: { 'if-none-match': PAGE.etag } });
    assert.equal(stale.status, 200);
    assert.deepEqual(await stale.json(), { openapi: '3.1.0', info: { title: 'Klinik – API' } });
  });
});

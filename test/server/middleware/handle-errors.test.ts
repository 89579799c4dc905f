import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../../src/db/data-directory.js';
import { sqliteDriver } from '../../../src/db/drivers/sqlite-driver.js';
import { buildPatient, text } from '../../helpers/builders.js';
import { assertMatchesContract, checkedFetch } from '../../helpers/contract.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/** Sends a body with chunked encoding (no Content-Length), as a streaming client would. */
function postChunked(server: TestServer, path: string, chunks: Buffer[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.baseUrl + path);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8').on('data', (c: string) => (data += c));
        res.on('end', () => {
          try {
            assertMatchesContract('POST', url.href, { status: res.statusCode ?? 0, headers: res.headers, text: data });
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) });
          } catch (error) {
            reject(error as Error);
          }
        });
      },
    );
    // The server answers 413 before reading the rest; a write after that may fail, the answer stands.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.on('close', () => setTimeout(() => reject(new Error('the connection closed without a complete answer')), 1000));
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('HTTP error contract', () => {
  const server = useTestServer();

  it('answers malformed JSON with 422 json_invalid', async () => {
    const response = await server.request('POST', '/patients', {
      rawBody: '{"first_name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 422);
    assert.equal(response.body.detail[0].type, 'json_invalid');
    assert.equal(response.body.detail[0].loc[0], 'body');
  });

  it('locates a JSON syntax error at the character a parser cannot take', async () => {
    const cases: [string, number][] = [
      ['{"first_name": ', 15],
      ['{"a":}', 5],
      ['{"a":1,}', 7],
      ['{"a" 1}', 5],
      ['[1]x', 3],
      ['{"a":[1,{"b":nul}]}', 16],
      ['{"a":"\\x"}', 7],
    ];
    for (const [body, position] of cases) {
      const response = await server.request('POST', '/patients', { rawBody: body, headers: { 'content-type': 'application/json' } });
      assert.deepEqual(response.body.detail[0].loc, ['body', position], body);
    }
  });

  it('answers an empty body, or a JSON null, with 422 missing at body', async () => {
    for (const rawBody of ['', 'null']) {
      const response = await server.request('POST', '/patients', { rawBody, headers: { 'content-type': 'application/json' } });
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.detail, [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }], rawBody);
    }
  });

  it('reports a missing body together with what is wrong in the path and the headers', async () => {
    const response = await server.request('POST', '/invoices/not-an-id/payments', {
      rawBody: '',
      headers: { 'content-type': 'application/json', 'idempotency-key': '' },
    });
    assert.equal(response.status, 422);
    assert.deepEqual(
      response.body.detail.map((i: { type: string; loc: unknown[] }) => [i.type, i.loc]),
      [
        ['uuid_parsing', ['path', 'invoice_id']],
        ['string_too_short', ['header', 'idempotency-key']],
        ['missing', ['body']],
      ],
    );
  });

  for (const body of [[], [buildPatient()], 'a string', 42, true]) {
    it(`answers a ${JSON.stringify(body).slice(0, 20)} body (not an object) with model_attributes_type`, async () => {
      const response = await server.request('POST', '/patients', { body });
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.detail, [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: body,
        },
      ]);
    });
  }

  it('answers a 100 kB string body with 422', async () => {
    const response = await server.request('POST', '/patients', { body: text(100_000) });
    assert.equal(response.status, 422);
    assert.equal(response.body.detail[0].type, 'model_attributes_type');
  });

  it('answers a 100 kB first_name with 422 string_too_long', async () => {
    const response = await server.request('POST', '/patients', { body: buildPatient({ first_name: text(100_000) }) });
    assert.equal(response.status, 422);
    assert.equal(response.body.detail[0].type, 'string_too_long');
  });

  it('refuses a 1,000,000-deep nested array with 422 json_invalid where it passes 200 levels, not a crash', async () => {
    const deep = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    const response = await server.request('POST', '/patients', { rawBody: deep, headers: { 'content-type': 'application/json' } });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body.detail[0].type, 'json_invalid');
    assert.deepEqual(response.body.detail[0].loc, ['body', 200]);
  });

  it('takes a value nested 200 deep inside a field, and reports it at its place', async () => {
    const deep = `{"first_name":"a","last_name":"b","email":"a@b","mobile":"1","communication_prefs":{"x":${'['.repeat(198)}${']'.repeat(198)}}}`;
    const response = await server.request('POST', '/patients', { rawBody: deep, headers: { 'content-type': 'application/json' } });
    assert.equal(response.status, 422);
    assert.deepEqual(response.body.detail[0].loc, ['body', 'communication_prefs', 'x', 0]);
  });

  it('reports failing values in order until the answer would pass 60 KiB', async () => {
    // 32 channels of 32 wrong values each: 1024 failing values, as many as the bounds allow.
    const prefs = Object.fromEntries(Array.from({ length: 32 }, (_, key) => [`k${key}`, Array(32).fill(1)]));
    const response = await server.request('POST', '/patients', { body: buildPatient({ communication_prefs: prefs }) });
    assert.equal(response.status, 422);
    assert.ok(Buffer.byteLength(response.text) <= 60 * 1024 + 20, `${response.text.length} bytes`);
    const count = response.body.detail.length;
    assert.ok(count > 500 && count < 1000, `${count} issues`);
    const last = count - 1;
    assert.deepEqual(response.body.detail[last].loc, ['body', 'communication_prefs', `k${Math.floor(last / 32)}`, last % 32]);
  });

  it('refuses a body over 4 MiB with 413 PAYLOAD_TOO_LARGE from its Content-Length', async () => {
    const response = await server.request('POST', '/patients', { body: buildPatient({ notes: text(4 * 1024 * 1024) }) });
    assert.equal(response.status, 413);
    assert.equal(response.body.detail.code, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses a chunked body once it passes 4 MiB', async () => {
    const chunk = Buffer.alloc(512 * 1024, 'a');
    const response = await postChunked(server, '/patients', [Buffer.from('{"notes":"'), ...Array(9).fill(chunk), Buffer.from('"}')]);
    assert.equal(response.status, 413);
    assert.equal(response.body.detail.code, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses a non-JSON content type with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await server.request('POST', '/patients', {
        rawBody: JSON.stringify(buildPatient()),
        headers: { 'content-type': type },
      });
      assert.equal(response.status, 415, type);
      assert.equal(response.body.detail.code, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('accepts application/json with a charset (in any case, with space before it), application/*+json and no content type', async () => {
    const variants: Record<string, string>[] = [
      { 'content-type': 'application/json; charset=utf-8' },
      // HTTP allows whitespace before a parameter's ';' (RFC 9110 §5.6.6), and media types ignore case.
      { 'content-type': 'Application/JSON ; charset=utf-8' },
      { 'content-type': 'application/vnd.clinic+json' },
      {},
    ];
    for (const headers of variants) {
      // Bytes, not a string: fetch would label a string body text/plain.
      const response = await server.request('POST', '/patients', { rawBody: Buffer.from(JSON.stringify(buildPatient())), headers });
      assert.equal(response.status, 201, JSON.stringify(headers));
    }
  });

  it('answers an unknown route with a JSON 404, before checking credentials', async () => {
    for (const key of [undefined, null]) {
      const response = await server.request('GET', '/nothing-here', { key });
      assert.equal(response.status, 404);
      assert.equal(response.body.detail.code, 'NOT_FOUND');
    }
    // Paths are as the interface declares them: no other case, no trailing slash.
    for (const path of ['/Doctors', '/doctors/', '/DOCTORS']) {
      const response = await server.request('GET', path);
      assert.equal(response.status, 404, path);
      assert.equal(response.body.detail.code, 'NOT_FOUND', path);
    }
    const outside = await checkedFetch(server.baseUrl.replace('/api/public/v1', '/'));
    assert.equal(outside.status, 404);
    assert.equal(((await outside.json()) as any).detail.code, 'NOT_FOUND');
  });

  it('answers a known path with another method with 405 and Allow, before credentials', async () => {
    const response = await server.request('DELETE', '/patients', { key: null });
    assert.equal(response.status, 405);
    assert.equal(response.body.detail.code, 'METHOD_NOT_ALLOWED');
    assert.equal(response.headers.get('allow'), 'GET, HEAD, POST');
    const lookup = await server.request('POST', '/document-types', { body: {} });
    assert.equal(lookup.status, 405);
    assert.match(lookup.headers.get('allow') ?? '', /GET/);
  });

  it('checks credentials before the content type and the body', async () => {
    const response = await server.request('POST', '/patients', { key: null, rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(response.status, 401);
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await server.request('GET', '/document-types', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'abc-123');
    const insane = await server.request('GET', '/document-types', { headers: { 'x-request-id': 'a b<script>' } });
    assert.match(insane.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const error = await server.request('GET', '/nothing');
    assert.match(error.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('answers 503 DATABASE_BUSY with Retry-After when another process holds the write lock, and stores nothing', async () => {
    const other = sqliteDriver().open(join(server.dataDir, DATABASE_FILE));
    const count = () => (other.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;
    const before = count();
    other.exec('BEGIN IMMEDIATE');
    try {
      const response = await server.request('POST', '/patients', { body: buildPatient() });
      assert.equal(response.status, 503);
      assert.equal(response.body.detail.code, 'DATABASE_BUSY');
      assert.equal(response.headers.get('retry-after'), '1');
    } finally {
      other.exec('ROLLBACK');
    }
    assert.equal(count(), before);
    other.close();
  });
});

describe('unexpected failures', () => {
  it('answer 500 INTERNAL without leaking SQL or stack traces', async () => {
    const server = await startTestServer();
    try {
      server.db.exec('DROP TABLE patients');
      const response = await server.request('POST', '/patients', { body: buildPatient() });
      assert.equal(response.status, 500);
      assert.deepEqual(Object.keys(response.body.detail).sort(), ['code', 'message']);
      assert.equal(response.body.detail.code, 'INTERNAL');
      assert.doesNotMatch(response.text, /patients|sqlite|at /i);
    } finally {
      await server.close();
    }
  });
});

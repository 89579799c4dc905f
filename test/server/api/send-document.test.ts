import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { multipartBody } from '../../helpers/multipart.js';

/**
 * How a stored document goes out (clinic-api-1.1.md, GET /patients/{patient_id}/documents/{document_id};
 * clinic-api-1.2.md "Downloads"): its type, name and ETag as stored, a 304 that shows and records
 * nothing, and a 200 whose document.read is stored before its first byte. Names and types from the
 * upload itself: test/server/routes/documents.test.ts.
 */

const BYTES = Buffer.from('%PDF-1.7\nBefund\n');
const SHA256 = createHash('sha256').update(BYTES).digest('hex');

describe('server: sending a stored document', () => {
  const server = useTestServer();
  let patientId: string;

  before(() => {
    patientId = createTestPatient(server.db).id;
  });

  /** Uploads BYTES as scan.pdf and gives the document's id. */
  async function uploaded(): Promise<string> {
    const form = multipartBody([{ name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', data: BYTES }]);
    const response = await server.request('POST', `/patients/${patientId}/documents`, {
      rawBody: form.body,
      headers: { 'content-type': form.contentType },
    });
    assert.equal(response.status, 201, response.text);
    return response.body.id;
  }

  /** Changes what the row of document `id` holds, as an older release or an edited database left it. */
  const storeAs = (id: string, columns: { filename?: string; content_type?: string; sha256?: string }) => {
    for (const [column, value] of Object.entries(columns))
      server.db.prepare(`UPDATE documents SET ${column} = ? WHERE id = ?`).run(value, id);
  };

  const download = (id: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/patients/${patientId}/documents/${id}`, { headers: { authorization: `Bearer ${server.key}`, ...headers } });

  const reads = (id: string) =>
    (server.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'document.read' AND subject_id = ?").get(id) as { n: number })
      .n;

  it('sends the bytes with the stored type, length, SHA-256 as ETag and nosniff, and records one document.read', async () => {
    const id = await uploaded();
    const response = await download(id);
    assert.equal(response.status, 200);
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), BYTES);
    assert.deepEqual(
      ['content-type', 'content-length', 'etag', 'x-content-type-options', 'content-disposition'].map((name) => response.headers.get(name)),
      ['application/pdf', String(BYTES.length), `"${SHA256}"`, 'nosniff', `attachment; filename="scan.pdf"; filename*=UTF-8''scan.pdf`],
    );
    assert.equal(reads(id), 1);
  });

  it('answers 304 with no body to an If-None-Match naming its ETag, and records no read', async () => {
    const id = await uploaded();
    for (const ifNoneMatch of [`"${SHA256}"`, `W/"${SHA256}"`, `"0000", "${SHA256}"`, '*']) {
      const response = await download(id, { 'if-none-match': ifNoneMatch });
      assert.deepEqual([response.status, await response.text(), response.headers.get('etag')], [304, '', `"${SHA256}"`], ifNoneMatch);
    }
    assert.equal(reads(id), 0);
  });

  it('names the file for old clients in ASCII and in full in filename*, one `_` for each code point beyond ASCII', async () => {
    const id = await uploaded();
    storeAs(id, { filename: `Befund "Müller" \\ (2026) it's *.pdf` });
    const named = await download(id);
    assert.equal(
      named.headers.get('content-disposition'),
      `attachment; filename="Befund _M_ller_ _ (2026) it's *.pdf"; filename*=UTF-8''Befund%20%22M%C3%BCller%22%20%5C%20%282026%29%20it%27s%20%2A.pdf`,
    );
    storeAs(id, { filename: '報告 😀.pdf' });
    const unicode = await download(id);
    assert.equal(unicode.status, 200);
    assert.equal(
      unicode.headers.get('content-disposition'),
      `attachment; filename="__ _.pdf"; filename*=UTF-8''%E5%A0%B1%E5%91%8A%20%F0%9F%98%80.pdf`,
    );
  });

  it('serves a row an older release or an edited database left as bytes: a type that is no media type, no ETag for no SHA-256', async () => {
    const id = await uploaded();
    storeAs(id, { content_type: 'text/html\r\nX-Injected: 1', sha256: 'not-a-sha256' });
    const response = await download(id, { 'if-none-match': '*' });
    assert.equal(response.status, 200, 'If-None-Match was answered without an ETag to compare');
    assert.deepEqual(
      [response.headers.get('content-type'), response.headers.get('etag'), response.headers.get('x-injected')],
      ['application/octet-stream', null, null],
    );
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), BYTES);
  });

  it('sends nothing of the file when its document.read cannot be stored', async () => {
    const id = await uploaded();
    server.db.exec(`CREATE TRIGGER reads_refused BEFORE INSERT ON audit_trail BEGIN SELECT RAISE(ABORT, 'the trail cannot take it'); END`);
    try {
      const response = await download(id);
      const text = await response.text();
      assert.equal(response.status, 500, text);
      assert.equal(JSON.parse(text).detail.code, 'INTERNAL');
      assert.ok(!text.includes('Befund'), `the answer shows the file: ${text}`);
      assert.deepEqual(
        [response.headers.get('content-disposition'), response.headers.get('content-type')],
        [null, 'application/json; charset=utf-8'],
      );
    } finally {
      server.db.exec('DROP TRIGGER reads_refused');
    }
    assert.equal(reads(id), 0);
    assert.equal((await download(id)).status, 200);
  });
});

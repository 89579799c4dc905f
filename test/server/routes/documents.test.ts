import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../../src/db/open-database.js';
import { createApiKey } from '../../../src/domain/api-keys.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient, createTestPatient } from '../../helpers/builders.js';
import { assertMatchesContract } from '../../helpers/contract.js';
import { formEnd, type FormPart, multipartBody, partHead } from '../../helpers/multipart.js';
import { makeDataDir, useTestServer } from '../../helpers/fixtures.js';
import type { TestServer } from '../../helpers/test-server.js';
import { checkoutProgram } from '../../helpers/run-cli.js';
import { RUNTIME_FLAGS } from '../../../scripts/runtime-flags.mjs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { rawRequest } from '../../helpers/raw-request.js';

const LIMIT = 1024 * 1024;
const DOCUMENT_KEYS = ['id', 'filename', 'content_type', 'size', 'created_at', 'type', 'document_number'];

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, failing after `timeoutMs`. */
async function eventually(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(dir.length + 1));
}

describe('POST /patients/{patient_id}/documents', () => {
  const server = useTestServer({ documentLimitBytes: LIMIT });
  let patientId: string;

  before(async () => {
    patientId = createPatient(server.db, buildPatient()).id;
  });

  const rows = () => server.db.prepare('SELECT * FROM documents ORDER BY created_at').all() as Record<string, unknown>[];
  const rowOf = (id: string) => server.db.prepare('SELECT * FROM documents WHERE id = ?').get(id) as Record<string, unknown> | undefined;
  const tempFiles = () => filesUnder(join(server.dataDir, 'tmp'));
  const storedFiles = () => filesUnder(join(server.dataDir, 'documents'));

  /** What a refusal must leave behind: the same rows and stored files as before, and no temporary file. */
  async function assertNothingLeft(before: { rows: number; files: number }): Promise<void> {
    await eventually(() => tempFiles().length === 0, 'the temporary file is gone');
    assert.equal(rows().length, before.rows);
    assert.equal(storedFiles().length, before.files);
  }
  const snapshot = () => ({ rows: rows().length, files: storedFiles().length });

  const upload = (parts: readonly FormPart[], options: { patient?: string; key?: string | null } = {}) => {
    const { body, contentType } = multipartBody(parts);
    return server.request('POST', `/patients/${options.patient ?? patientId}/documents`, {
      rawBody: body,
      headers: { 'content-type': contentType },
      ...(options.key === undefined ? {} : { key: options.key }),
    });
  };
  const filePart = (data: string | Uint8Array = 'scan bytes', overrides: Partial<FormPart> = {}): FormPart => ({
    name: 'file',
    filename: 'scan.pdf',
    contentType: 'application/pdf',
    data,
    ...overrides,
  });

  describe('a stored document', () => {
    it('answers 201 with the Document of spec 2.11', async () => {
      const response = await upload([filePart('%PDF-1.7 ...'), { name: 'type', data: 'xrays' }]);
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(Object.keys(response.body), DOCUMENT_KEYS);
      assert.match(response.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(response.body.filename, 'scan.pdf');
      assert.equal(response.body.content_type, 'application/pdf');
      assert.equal(response.body.size, 12);
      assert.match(response.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(response.body.type, 'xrays');
    });

    it('numbers each document D-000001, D-000002, … after its 1.0.0 fields, never giving a number twice (issue 42, finding 10)', async () => {
      const first = await upload([filePart()]);
      assert.equal(first.status, 201, first.text);
      const seq = Number(/^D-(\d{6})$/.exec(first.body.document_number)![1]);
      const listed = await server.request('GET', `/patients/${patientId}/documents`);
      assert.equal(listed.body.find((item: { id: string }) => item.id === first.body.id).document_number, first.body.document_number);
      // As an upload whose file could not be put in place removes its row: the number goes with it.
      server.db.prepare('DELETE FROM documents WHERE id = ?').run(first.body.id);
      rmSync(join(server.dataDir, 'documents', patientId, first.body.id));
      const next = await upload([filePart()]);
      assert.equal(next.body.document_number, `D-${String(seq + 1).padStart(6, '0')}`);
    });

    it('stores the uploaded bytes unchanged under documents/<patient_id>/<id>, with their size and SHA-256 in the row', async () => {
      const bytes = randomBytes(300_000);
      const response = await upload([filePart(bytes), { name: 'title', data: 'Panoramic 2026' }]);
      assert.equal(response.status, 201, response.text);
      const stored = readFileSync(join(server.dataDir, 'documents', patientId, response.body.id));
      assert.ok(stored.equals(bytes), 'the stored file holds the uploaded bytes');
      const row = rowOf(response.body.id)!;
      assert.equal(row.patient_id, patientId);
      assert.equal(row.size, bytes.length);
      assert.equal(row.sha256, sha256(bytes));
      assert.equal(row.title, 'Panoramic 2026');
      assert.equal(row.type, 'other');
      assert.deepEqual(tempFiles(), []);
    });

    it('defaults type to other when the field is absent', async () => {
      const response = await upload([filePart()]);
      assert.equal(response.body.type, 'other');
    });

    it('treats an empty type and an empty title as absent', async () => {
      const response = await upload([{ name: 'type', data: '' }, { name: 'title', data: '' }, filePart()]);
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.type, 'other');
      assert.equal(rowOf(response.body.id)!.title, null);
    });

    it('accepts the text fields before or after the file', async () => {
      const first = await upload([{ name: 'type', data: 'consent' }, filePart()]);
      const last = await upload([filePart(), { name: 'type', data: 'consent' }]);
      assert.equal(first.body.type, 'consent');
      assert.equal(last.body.type, 'consent');
    });

    it("takes content_type from the part (type/subtype in lower case), and busboy's text/plain when the part declares none", async () => {
      const declared = await upload([filePart('a', { contentType: 'image/png' })]);
      const plain = await upload([filePart('a', { contentType: 'Text/Plain; charset="utf-8"' })]);
      const none = await upload([filePart('a', { contentType: undefined })]);
      assert.equal(declared.body.content_type, 'image/png');
      assert.equal(plain.body.content_type, 'text/plain');
      // decisions.md §6: RFC 7578 §4.4's default, as the stack's parser reports it.
      assert.equal(none.body.content_type, 'text/plain');
    });

    it('ignores file parts under other names and unknown text fields', async () => {
      const response = await upload([
        { name: 'attachment', filename: 'other.bin', contentType: 'application/octet-stream', data: 'not this one' },
        { name: 'comment', data: 'hello' },
        filePart('this one'),
      ]);
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.size, 8);
    });

    it('accepts an upper-case patient id', async () => {
      const response = await upload([filePart()], { patient: patientId.toUpperCase() });
      assert.equal(response.status, 201, response.text);
      assert.equal(rowOf(response.body.id)!.patient_id, patientId);
    });

    const names: { title: string; sent: string; stored: string; star?: boolean }[] = [
      { title: 'reduces a Unix path to its base name', sent: '../../etc/passwd', stored: 'passwd' },
      { title: 'reduces a Windows path to its base name', sent: 'C:\\x\\y.pdf', stored: 'y.pdf' },
      { title: 'removes a tab', sent: 'a\tb.pdf', stored: 'ab.pdf' },
      { title: 'removes a line break a browser escaped as %0A', sent: 'two%0Alines.pdf', stored: 'twolines.pdf' },
      { title: 'removes bidirectional overrides that disguise an extension', sent: 'invoice\u202Efdp.exe', stored: 'invoicefdp.exe' },
      { title: 'keeps UTF-8 names', sent: 'Befund Müller ✓.pdf', stored: 'Befund Müller ✓.pdf' },
      { title: 'names the document "document" when nothing usable is left', sent: '../..', stored: 'document' },
      { title: 'removes percent-encoded control characters', sent: "utf-8''a%01b%7Fc%C2%85.pdf", stored: 'abc.pdf', star: true },
      {
        title: 'names the document "document" when only control characters were sent',
        sent: "utf-8''%01%02",
        stored: 'document',
        star: true,
      },
    ];
    for (const { title, sent, stored, star } of names) {
      it(`${title} (${JSON.stringify(sent)} → ${JSON.stringify(stored)})`, async () => {
        const response = await upload([filePart('x', star ? { filename: undefined, filenameStar: sent } : { filename: sent })]);
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.filename, stored);
        // Whatever the name, the file lands under its id.
        assert.ok(existsSync(join(server.dataDir, 'documents', patientId, response.body.id)));
      });
    }

    it('refuses a part header with a raw control character (busboy does) with a 422 at body that says so', async () => {
      const before = snapshot();
      for (const filename of ['sc\u0001a\u001bn.pdf', 'scan\u007f.pdf']) {
        const response = await upload([filePart('x', { filename })]);
        assert.equal(response.status, 422, response.text);
        assert.deepEqual(response.body.detail[0].loc, ['body']);
        assert.match(response.body.detail[0].msg, /control character/);
      }
      // fetch's FormData writes a file name's control characters other than LF and CR raw.
      const form = new FormData();
      form.append('file', new File(['x'], 'Befund\u0007 M\u00fcller\u001b.pdf', { type: 'application/pdf' }));
      const url = `${server.baseUrl}/patients/${patientId}/documents`;
      const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${server.key}` }, body: form });
      const text = await response.text();
      assertMatchesContract('POST', url, { status: response.status, headers: response.headers, text });
      assert.equal(response.status, 422, text);
      await assertNothingLeft(before);
    });

    it('refuses a part Content-Type over 255 characters with a 422 at body.file, storing nothing', async () => {
      const before = snapshot();
      for (const contentType of [`application/${'x'.repeat(16_000)}`, `application/${'x'.repeat(244)}`]) {
        const response = await upload([filePart('x', { contentType })]);
        assert.equal(response.status, 422, response.text);
        assert.deepEqual(
          response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
          [['value_error', ['body', 'file']]],
        );
      }
      await assertNothingLeft(before);
      const longest = await upload([filePart('x', { contentType: `application/${'x'.repeat(243)}` })]);
      assert.equal(longest.status, 201, longest.text);
    });

    it('serves a document stored with a type that is no media type (an old database) as application/octet-stream, closing its file', async () => {
      const stored = await upload([filePart('kept bytes')]);
      assert.equal(stored.status, 201, stored.text);
      server.db.prepare('UPDATE documents SET content_type = ? WHERE id = ?').run('text/html\r\nSet-Cookie: a=b', stored.body.id);
      const openFiles = () => readdirSync('/proc/self/fd').length;
      const download = () =>
        fetch(`${server.baseUrl}/patients/${patientId}/documents/${stored.body.id}`, {
          headers: { authorization: `Bearer ${server.key}` },
        });
      const first = await download();
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('content-type'), 'application/octet-stream');
      assert.equal(first.headers.get('set-cookie'), null);
      assert.equal(await first.text(), 'kept bytes');
      if (existsSync('/proc/self/fd') && process.env.CLINIC_BIN === undefined) {
        const before = openFiles();
        for (let i = 0; i < 20; i++) await (await download()).arrayBuffer();
        await eventually(() => openFiles() <= before, 'every download closed its file');
      }
    });
  });

  describe('the size limit', () => {
    it('accepts a file of exactly the limit', async () => {
      const bytes = randomBytes(LIMIT);
      const response = await upload([filePart(bytes)]);
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.size, LIMIT);
      assert.equal(rowOf(response.body.id)!.sha256, sha256(bytes));
    });

    it('refuses a file one byte over the limit with 413 DOCUMENT_TOO_LARGE and leaves nothing behind', async () => {
      const before = snapshot();
      const response = await upload([filePart(randomBytes(LIMIT + 1))]);
      assert.equal(response.status, 413, response.text);
      assert.equal(response.body.detail.code, 'DOCUMENT_TOO_LARGE');
      assert.equal(response.headers.get('connection'), 'close');
      await assertNothingLeft(before);
    });

    it('refuses from Content-Length, without reading, a body far over the limit', async () => {
      const { body, contentType } = multipartBody([filePart(randomBytes(LIMIT * 3))]);
      const response = await server.request('POST', `/patients/${patientId}/documents`, {
        rawBody: body,
        headers: { 'content-type': contentType },
      });
      assert.equal(response.status, 413);
      assert.equal(response.body.detail.code, 'DOCUMENT_TOO_LARGE');
    });

    /** Sends a chunked upload of up to 200 MiB that keeps sending whatever the server does; resolves with the answer. */
    function sendPastTheLimit(): Promise<{ status: number; code: string; connection: string | undefined; sent: number }> {
      let sent = 0;
      return new Promise((resolve, reject) => {
        setTimeout(() => reject(new Error('no answer within 10 s: the connection was reset before the response was read')), 10_000).unref();
        const req = httpRequest(
          `${server.baseUrl}/patients/${patientId}/documents`,
          { method: 'POST', headers: { authorization: `Bearer ${server.key}`, 'content-type': multipartBody([]).contentType } },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            res.on('end', () => {
              try {
                assertMatchesContract('POST', `${server.baseUrl}/patients/${patientId}/documents`, {
                  status: res.statusCode ?? 0,
                  headers: res.headers,
                  text,
                });
                resolve({ status: res.statusCode ?? 0, code: JSON.parse(text).detail.code, connection: res.headers.connection, sent });
              } catch (error) {
                reject(error as Error);
              }
            });
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          // The server may close before the client stops writing; the response already came.
          if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
        });
        // Without an answer the promise would otherwise never settle.
        req.on('close', () =>
          setTimeout(() => reject(new Error(`the connection closed without a complete answer after ${sent} bytes`)), 1000),
        );
        req.write(partHead({ name: 'file', filename: 'huge.bin', contentType: 'application/octet-stream' }));
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (sent < 200 * 1024 * 1024 && !req.destroyed) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end(formEnd());
        };
        pump();
      });
    }

    it('stops reading a chunked upload as soon as it passes the limit and closes the connection', async () => {
      const before = snapshot();
      const { sent, ...outcome } = await sendPastTheLimit();
      assert.deepEqual(outcome, { status: 413, code: 'DOCUMENT_TOO_LARGE', connection: 'close' });
      assert.ok(sent < 64 * 1024 * 1024, `the client could send ${sent} bytes; the server must stop reading near the limit`);
      await assertNothingLeft(before);
    });

    it('lets a client that keeps sending read its 413 instead of a connection reset, every time', async () => {
      // Closing at once made about one such client in ten get a reset before the answer.
      for (let i = 0; i < 100; i++) assert.equal((await sendPastTheLimit()).status, 413, `attempt ${i}`);
    });
  });

  describe('refusals', () => {
    const unknownPatient = randomUUID();
    const scenarios: {
      title: string;
      parts: () => FormPart[];
      patient?: () => string;
      status: number;
      code?: string;
      issues?: [string, (string | number)[]][];
    }[] = [
      { title: 'refuses an empty file with 422 DOCUMENT_EMPTY', parts: () => [filePart('')], status: 422, code: 'DOCUMENT_EMPTY' },
      {
        title: 'refuses an unknown type sent before the file with 422 DOCUMENT_TYPE_INVALID',
        parts: () => [{ name: 'type', data: 'selfie' }, filePart()],
        status: 422,
        code: 'DOCUMENT_TYPE_INVALID',
      },
      {
        title: 'refuses an unknown type sent after the file with 422 DOCUMENT_TYPE_INVALID',
        parts: () => [filePart(), { name: 'type', data: 'selfie' }],
        status: 422,
        code: 'DOCUMENT_TYPE_INVALID',
      },
      {
        title: 'refuses a type in the wrong case with 422 DOCUMENT_TYPE_INVALID',
        parts: () => [filePart(), { name: 'type', data: 'XRAYS' }],
        status: 422,
        code: 'DOCUMENT_TYPE_INVALID',
      },
      {
        title: 'refuses an unknown patient with 404 PATIENT_NOT_FOUND',
        parts: () => [filePart()],
        patient: () => unknownPatient,
        status: 404,
        code: 'PATIENT_NOT_FOUND',
      },
      {
        title: 'refuses a malformed patient id with 422 uuid_parsing',
        parts: () => [filePart()],
        patient: () => 'P-000001',
        status: 422,
        issues: [['uuid_parsing', ['path', 'patient_id']]],
      },
      {
        title: 'refuses a form without a file part as missing',
        parts: () => [{ name: 'title', data: 'x' }],
        status: 422,
        issues: [['missing', ['body', 'file']]],
      },
      {
        title: 'refuses the part a browser sends when no file was chosen as missing',
        parts: () => [filePart('', { filename: '', contentType: 'application/octet-stream' })],
        status: 422,
        issues: [['missing', ['body', 'file']]],
      },
      {
        title: 'refuses a `file` sent as a text field',
        parts: () => [{ name: 'file', data: 'just text' }],
        status: 422,
        issues: [['value_error', ['body', 'file']]],
      },
      {
        title: 'refuses two files',
        parts: () => [filePart('one'), filePart('two')],
        status: 422,
        issues: [['value_error', ['body', 'file']]],
      },
      {
        title: 'refuses a text field over 64 KiB',
        parts: () => [filePart(), { name: 'title', data: 'x'.repeat(64 * 1024 + 1) }],
        status: 422,
        issues: [['value_error', ['body', 'title']]],
      },
      {
        title: 'refuses a form of more than 12 parts',
        parts: () => [filePart(), ...Array.from({ length: 12 }, (_, i) => ({ name: `extra${i}`, data: 'x' }))],
        status: 422,
        issues: [['value_error', ['body']]],
      },
      {
        title: 'refuses a type sent twice',
        parts: () => [filePart(), { name: 'type', data: 'xrays' }, { name: 'type', data: 'scans' }],
        status: 422,
        issues: [['string_type', ['body', 'type']]],
      },
      {
        title: 'reports a malformed patient id and a missing file together',
        parts: () => [{ name: 'type', data: 'xrays' }],
        patient: () => 'nope',
        status: 422,
        issues: [
          ['uuid_parsing', ['path', 'patient_id']],
          ['missing', ['body', 'file']],
        ],
      },
      {
        title: 'reports a missing file before an unknown patient',
        parts: () => [],
        patient: () => unknownPatient,
        status: 422,
        issues: [['missing', ['body', 'file']]],
      },
      {
        title: 'reports an unknown patient before an unknown type',
        parts: () => [{ name: 'type', data: 'selfie' }, filePart()],
        patient: () => unknownPatient,
        status: 404,
        code: 'PATIENT_NOT_FOUND',
      },
      {
        title: 'reports an unknown type before an empty file',
        parts: () => [filePart(''), { name: 'type', data: 'selfie' }],
        status: 422,
        code: 'DOCUMENT_TYPE_INVALID',
      },
    ];
    for (const scenario of scenarios) {
      it(`${scenario.title}, leaving nothing behind`, async () => {
        const before = snapshot();
        const response = await upload(scenario.parts(), { patient: scenario.patient?.() ?? patientId });
        assert.equal(response.status, scenario.status, response.text);
        if (scenario.code) assert.equal(response.body.detail.code, scenario.code);
        if (scenario.issues)
          assert.deepEqual(
            response.body.detail.map((i: { type: string; loc: unknown }) => [i.type, i.loc]),
            scenario.issues,
          );
        await assertNothingLeft(before);
      });
    }

    it('refuses a body that is not multipart with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'multipart/mixed; boundary=x' }, {}] as Record<
        string,
        string
      >[]) {
        const response = await server.request('POST', `/patients/${patientId}/documents`, { rawBody: '{}', headers });
        assert.equal(response.status, 415);
        assert.equal(response.body.detail.code, 'UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it('refuses a malformed multipart body with a 422 at body, never a 500', async () => {
      const before = snapshot();
      const bodies: { contentType: string; body: Buffer }[] = [
        { contentType: 'multipart/form-data', body: Buffer.from('no boundary given') },
        { contentType: multipartBody([]).contentType, body: Buffer.from('garbage without any delimiter') },
        { contentType: multipartBody([]).contentType, body: Buffer.alloc(0) },
        // A bare LF inside a part's header line.
        { contentType: multipartBody([]).contentType, body: multipartBody([filePart('x', { filename: 'a\nb.pdf' })]).body },
        // Ends in the middle of the file, as a client that gives up would.
        {
          contentType: multipartBody([]).contentType,
          body: Buffer.concat([partHead({ name: 'file', filename: 'a.pdf' }), Buffer.from('half a file')]),
        },
      ];
      for (const { contentType, body } of bodies) {
        const response = await server.request('POST', `/patients/${patientId}/documents`, {
          rawBody: body,
          headers: { 'content-type': contentType },
        });
        assert.equal(response.status, 422, response.text);
        assert.deepEqual(response.body.detail[0].loc, ['body']);
      }
      await assertNothingLeft(before);
    });

    it('has removed the temporary file of a form that ends inside the file by the time it answers', async () => {
      const before = snapshot();
      for (let i = 0; i < 5; i++) {
        const response = await server.request('POST', `/patients/${patientId}/documents`, {
          rawBody: Buffer.concat([partHead({ name: 'file', filename: 'cut.pdf' }), randomBytes(300_000)]),
          headers: { 'content-type': multipartBody([]).contentType },
        });
        assert.equal(response.status, 422, response.text);
        // Not eventually: a refusal answered while its file was still being removed left it there.
        assert.deepEqual(tempFiles(), []);
      }
      assert.deepEqual(snapshot(), before);
    });

    it('reports a malformed patient id together with a malformed form', async () => {
      const response = await server.request('POST', '/patients/P-000001/documents', {
        rawBody: Buffer.from('garbage without any delimiter'),
        headers: { 'content-type': multipartBody([]).contentType },
      });
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(
        response.body.detail.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type]),
        [
          [['path', 'patient_id'], 'uuid_parsing'],
          [['body'], 'value_error'],
        ],
      );
    });

    it('requires an API key (401) and the documents:write scope (403)', async () => {
      const anonymous = await upload([filePart()], { key: null });
      assert.equal(anonymous.status, 401);
      const narrow = await upload([filePart()], { key: server.createKey(['patients:write']) });
      assert.equal(narrow.status, 403);
      assert.equal(narrow.body.detail.code, 'FORBIDDEN');
    });
  });

  it('leaves no file, temporary file or row when the client disconnects mid-upload', async () => {
    const before = snapshot();
    const head = partHead({ name: 'file', filename: 'cut.bin', contentType: 'application/octet-stream' });
    const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      [
        `POST /api/public/v1/patients/${patientId}/documents HTTP/1.1`,
        'Host: 127.0.0.1',
        `Authorization: Bearer ${server.key}`,
        `Content-Type: ${multipartBody([]).contentType}`,
        'Content-Length: 900000',
        '',
        '',
      ].join('\r\n'),
    );
    socket.write(head);
    socket.write(randomBytes(300_000));
    // The upload is under way once its temporary file exists.
    await eventually(() => tempFiles().length === 1, 'the temporary file exists');
    socket.destroy();
    await assertNothingLeft(before);
  });
});

describe('uploading a large document', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const SIZE = 300 * 1024 * 1024;
  const ALLOWED_RISE = 64 * 1024 * 1024;

  /** The peak resident set size of a process, from Linux's /proc (VmHWM, in bytes). */
  const peakRss = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

  it(
    "streams 300 MB to disk while the server's peak memory rises by less than 64 MB",
    { skip: !existsSync('/proc/self/status') && 'needs Linux /proc', timeout: 60_000 },
    async (t) => {
      const dataDir = makeDataDir();
      const db = openDatabase(dataDir);
      const patientId = createPatient(db, buildPatient()).id;
      const key = createApiKey(db, { name: 'memory test' }).key;
      db.close();
      // With the V8 flags the single executable runs with (scripts/runtime-flags.mjs).
      const [node, ...program] = checkoutProgram(RUNTIME_FLAGS);
      const child = spawn(node, [...program, 'serve', '--data', dataDir, '--port', '0', '--document-limit-mb', '1024'], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const baseUrl = await new Promise<string>((resolve, reject) => {
          let buffered = '';
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            buffered += chunk;
            for (const line of buffered.split('\n')) {
              if (line.includes('"listening"')) resolve(JSON.parse(line).address);
            }
          });
          child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
        });
        const url = `${baseUrl}/patients/${patientId}/documents`;
        const send = (size: number) =>
          new Promise<{ status: number; body: Record<string, unknown>; sha256: string }>((resolve, reject) => {
            const head = partHead({ name: 'file', filename: 'big.bin', contentType: 'application/octet-stream' });
            const end = formEnd();
            const req = httpRequest(
              url,
              {
                method: 'POST',
                headers: {
                  authorization: `Bearer ${key}`,
                  'content-type': multipartBody([]).contentType,
                  'content-length': head.length + size + end.length,
                },
              },
              (res) => {
                let text = '';
                res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
                res.on('end', () => {
                  try {
                    assertMatchesContract('POST', url, { status: res.statusCode ?? 0, headers: res.headers, text });
                    resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sha256: hash.digest('hex') });
                  } catch (error) {
                    reject(error as Error);
                  }
                });
              },
            );
            req.on('error', reject);
            const hash = createHash('sha256');
            const block = randomBytes(1024 * 1024);
            let sent = 0;
            req.write(head);
            const pump = () => {
              while (sent < size) {
                const piece = block.subarray(0, Math.min(block.length, size - sent));
                // Vary the bytes so that a lost or repeated block would change the hash.
                piece.writeUInt32LE(sent / block.length, 0);
                hash.update(piece);
                sent += piece.length;
                if (!req.write(Buffer.from(piece))) return void req.once('drain', pump);
              }
              req.end(end);
            };
            pump();
          });

        // Warm up, so that the baseline includes the code and buffers every upload uses.
        assert.equal((await send(64 * 1024)).status, 201);
        const baseline = peakRss(child.pid!);
        const started = process.hrtime.bigint();
        const result = await send(SIZE);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const rise = peakRss(child.pid!) - baseline;
        t.diagnostic(
          `300 MB upload: peak RSS rose by ${(rise / 1024 / 1024).toFixed(1)} MB (baseline ${(baseline / 1024 / 1024).toFixed(0)} MB), ${(SIZE / 1024 / 1024 / seconds).toFixed(0)} MB/s`,
        );

        assert.equal(result.status, 201, JSON.stringify(result.body));
        assert.equal(result.body.size, SIZE);
        assert.ok(rise < ALLOWED_RISE, `peak RSS rose by ${rise} bytes`);
        const check = openDatabase(dataDir);
        try {
          const row = check.prepare('SELECT size, sha256 FROM documents WHERE id = ?').get(result.body.id) as {
            size: number;
            sha256: string;
          };
          assert.deepEqual({ ...row }, { size: SIZE, sha256: result.sha256 });
        } finally {
          check.close();
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});

const execFileAsync = promisify(execFile);

/** curl where Debian puts it: found by path, as test:dist runs the suites with a PATH of the program alone. */
const curl = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((path) => existsSync(path));

// GET /patients/{patient_id}/documents and the document download of interface 1.1.0
// (clinic-api-1.1.md), black box over HTTP.

/** The [type, loc] of each item of a 422 detail array. */
const issuesOf = (body: any): [string, unknown[]][] => body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]);

/** Uploads one document over POST /patients/{patient_id}/documents and returns the 2.11 response. */
async function upload(server: TestServer, patientId: string, file: Partial<FormPart> & { data: string | Uint8Array }, title?: string) {
  const parts: FormPart[] = [{ name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', ...file }];
  if (title !== undefined) parts.push({ name: 'title', data: title });
  const { body, contentType } = multipartBody(parts);
  const response = await server.request('POST', `/patients/${patientId}/documents`, {
    rawBody: body,
    headers: { 'content-type': contentType },
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; filename: string; content_type: string; size: number; created_at: string; type: string };
}

describe('GET /patients/{patient_id}/documents', () => {
  const server = useTestServer();

  it('lists the documents newest first, each the upload response plus title and sha256', async () => {
    const patient = createTestPatient(server.db);
    const other = createTestPatient(server.db);
    const sent: { data: Buffer; title: string | null; uploaded: Awaited<ReturnType<typeof upload>> }[] = [];
    for (const title of ['Panoramic 2026', null, 'Consent form']) {
      const data = randomBytes(1000 + sent.length);
      const uploaded = await upload(server, patient.id, { data, filename: `doc${sent.length}.bin` }, title ?? undefined);
      sent.push({ data, title, uploaded });
      // Uploads a few milliseconds apart, so that "newest" is well defined.
      await sleep(5);
    }
    await upload(server, other.id, { data: 'not this patient' });

    const response = await server.request('GET', `/patients/${patient.id}/documents`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body,
      sent.reverse().map(({ data, title, uploaded }) => ({ ...uploaded, title, sha256: sha256(data) })),
    );
  });

  it('keeps the type and content type given at upload', async () => {
    const patient = createTestPatient(server.db);
    const { body, contentType } = multipartBody([
      { name: 'type', data: 'xrays' },
      { name: 'file', filename: 'pano.png', contentType: 'image/png', data: 'png bytes' },
    ]);
    const uploaded = await server.request('POST', `/patients/${patient.id}/documents`, {
      rawBody: body,
      headers: { 'content-type': contentType },
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    const response = await server.request('GET', `/patients/${patient.id}/documents`);
    assert.deepEqual(response.body, [{ ...uploaded.body, title: null, sha256: sha256(Buffer.from('png bytes')) }]);
    assert.equal(response.body[0].type, 'xrays');
    assert.equal(response.body[0].content_type, 'image/png');
  });

  it('answers [] for a patient without documents, by an upper-case id too', async () => {
    const patient = createTestPatient(server.db);
    for (const id of [patient.id, patient.id.toUpperCase()]) {
      const response = await server.request('GET', `/patients/${id}/documents`);
      assert.deepEqual([response.status, response.body], [200, []]);
    }
  });

  it('answers 404 PATIENT_NOT_FOUND for an unknown patient', async () => {
    const response = await server.request('GET', `/patients/${randomUUID()}/documents`);
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.detail.code, 'PATIENT_NOT_FOUND');
  });

  it('checks the query before looking for the patient (422 before 404)', async () => {
    const response = await server.request('GET', `/patients/${randomUUID()}/documents?limit=0`);
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body), [['greater_than_equal', ['query', 'limit']]]);
  });

  it('refuses a malformed patient id with 422 uuid_parsing at ["path","patient_id"]', async () => {
    const response = await server.request('GET', '/patients/P-000001/documents');
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body), [['uuid_parsing', ['path', 'patient_id']]]);
  });
});

describe('GET /patients/{patient_id}/documents/{document_id}', () => {
  const server = useTestServer();
  let patientId: string;
  let otherPatientId: string;
  const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(200_000)]);
  let doc: Awaited<ReturnType<typeof upload>>;
  let othersDoc: Awaited<ReturnType<typeof upload>>;

  before(async () => {
    patientId = createTestPatient(server.db).id;
    otherPatientId = createTestPatient(server.db).id;
    doc = await upload(server, patientId, { data: bytes, filename: 'Befund Müller ✓.png', contentType: 'image/png' }, 'Befund');
    othersDoc = await upload(server, otherPatientId, { data: 'someone else' });
  });

  const pathOf = (patient: string, document: string) => `/patients/${patient}/documents/${document}`;

  /**
   * GET of a document with fetch, its body as bytes. Answers other than 200 are checked against the
   * OpenAPI document; a 200 is the stored bytes of any media type (the document's `*\/*`), which
   * the contract helper, matching media types exactly, cannot check.
   */
  async function download(path: string, headers: Record<string, string> = {}) {
    const url = `${server.baseUrl}${path}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${server.key}`, ...headers } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200)
      assertMatchesContract('GET', url, { status: response.status, headers: response.headers, text: body.toString('latin1') });
    return { status: response.status, headers: response.headers, body };
  }

  /**
   * Asserts a Content-Disposition of exactly `attachment; filename="<ascii>"; filename*=UTF-8''<name
   * percent-encoded>` (RFC 6266 §4.3; RFC 8187 attr-chars), the fallback being `ascii`.
   */
  function assertDisposition(header: string | null, filename: string, ascii: string): void {
    const match = /^attachment; filename="([^"\\]*)"; filename\*=UTF-8''(.*)$/.exec(header ?? '');
    assert.ok(match, `Content-Disposition: ${header}`);
    assert.equal(match[1], ascii, 'the ASCII fallback');
    assert.match(match[1]!, /^[\x20-\x7e]*$/, 'the fallback is printable ASCII');
    assert.match(match[2]!, /^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-Fa-f]{2})+$/, 'only attr-chars and percent-encoded octets');
    assert.equal(decodeURIComponent(match[2]!), filename);
  }

  it('answers the stored bytes with their type, length, name, ETag and nosniff', async () => {
    const response = await download(pathOf(patientId, doc.id));
    assert.equal(response.status, 200);
    assert.ok(response.body.equals(bytes), 'the bytes uploaded');
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(response.headers.get('content-length'), String(bytes.length));
    assertDisposition(response.headers.get('content-disposition'), 'Befund Müller ✓.png', 'Befund M_ller _.png');
    assert.equal(response.headers.get('etag'), `"${sha256(bytes)}"`);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });

  it('percent-encodes every character of the stored name that may not stand raw in filename*', async () => {
    const name = 'O\'Brien (1); *copy* 100% "final".pdf';
    const stored = await upload(server, patientId, {
      data: 'x',
      filename: undefined,
      filenameStar: `utf-8''${encodeURIComponent(name).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    });
    assert.equal(stored.filename, name);
    const response = await download(pathOf(patientId, stored.id));
    assert.equal(response.status, 200);
    assertDisposition(response.headers.get('content-disposition'), name, "O'Brien (1); *copy* 100% _final_.pdf");
  });

  it(
    'gives a name curl -OJ saves the file under (the ASCII fallback of 1.2.0)',
    { skip: curl === undefined && 'no curl on this machine' },
    async () => {
      const stored = await upload(server, patientId, { data: '%PDF-1.7', filename: 'scan.pdf', contentType: 'application/pdf' });
      const folder = mkdtempSync(join(tmpdir(), 'clinic-curl-'));
      try {
        const url = `${server.baseUrl}${pathOf(patientId, stored.id)}`;
        await execFileAsync(curl!, ['-s', '-f', '-O', '-J', '-H', `Authorization: Bearer ${server.key}`, url], { cwd: folder });
        assert.deepEqual(readdirSync(folder), ['scan.pdf']);
        assert.equal(readFileSync(join(folder, 'scan.pdf'), 'utf8'), '%PDF-1.7');
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  const storedTypes: { title: string; contentType: string | undefined; data: string }[] = [
    {
      title: 'application/octet-stream for an upload whose part had no type',
      contentType: undefined,
      data: '<html>not for sniffing</html>',
    },
    { title: 'text/plain', contentType: 'text/plain', data: 'plain text' },
    { title: 'a type with a parameter', contentType: 'text/plain; charset=iso-8859-1', data: 'caf\u00e9' },
    { title: 'text/html, which nosniff and attachment keep from being rendered', contentType: 'text/html', data: '<script>1</script>' },
  ];
  for (const { title, contentType, data } of storedTypes) {
    it(`answers the Content-Type as stored: ${title}`, async () => {
      const stored = await upload(server, patientId, { data, contentType });
      const response = await download(pathOf(patientId, stored.id));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), stored.content_type);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.ok(response.body.equals(Buffer.from(data)));
    });
  }

  it('accepts both ids in upper case', async () => {
    const response = await download(pathOf(patientId.toUpperCase(), doc.id.toUpperCase()));
    assert.equal(response.status, 200);
    assert.ok(response.body.equals(bytes));
  });

  const revalidations: { title: string; headers: () => Record<string, string> }[] = [
    { title: 'naming the ETag (fetch adds Cache-Control: no-cache itself)', headers: () => ({ 'if-none-match': `"${sha256(bytes)}"` }) },
    {
      title: 'naming the ETag, with Cache-Control: no-cache and Pragma: no-cache sent explicitly',
      headers: () => ({ 'if-none-match': `"${sha256(bytes)}"`, 'cache-control': 'no-cache', pragma: 'no-cache' }),
    },
    { title: 'naming the ETag among others', headers: () => ({ 'if-none-match': `"0000", "${sha256(bytes)}", "ffff"` }) },
    // RFC 9110 §13.1.2: If-None-Match compares entity tags weakly.
    { title: 'naming the ETag as a weak tag', headers: () => ({ 'if-none-match': `W/"${sha256(bytes)}"` }) },
  ];
  for (const { title, headers } of revalidations) {
    it(`answers 304 without a body to If-None-Match ${title}`, async () => {
      const response = await download(pathOf(patientId, doc.id), headers());
      assert.equal(response.status, 304);
      assert.equal(response.body.length, 0);
      assert.equal(response.headers.get('etag'), `"${sha256(bytes)}"`);
    });
  }

  it('answers 304 to If-None-Match with Cache-Control: no-cache over a plain connection as well', async () => {
    const response = await rawRequest(server.baseUrl, {
      method: 'GET',
      path: pathOf(patientId, doc.id),
      headers: { authorization: `Bearer ${server.key}`, 'if-none-match': `"${sha256(bytes)}"`, 'cache-control': 'no-cache' },
    });
    assert.equal(response.status, 304);
    assert.equal(response.text, '');
  });

  it('answers 200 with the bytes to If-None-Match naming another ETag', async () => {
    const response = await download(pathOf(patientId, doc.id), { 'if-none-match': `"${sha256(Buffer.from('else'))}"` });
    assert.equal(response.status, 200);
    assert.ok(response.body.equals(bytes));
  });

  const notFound: { title: string; path: () => string; code: string }[] = [
    { title: 'an unknown document', path: () => pathOf(patientId, randomUUID()), code: 'DOCUMENT_NOT_FOUND' },
    { title: 'a document of another patient', path: () => pathOf(patientId, othersDoc.id), code: 'DOCUMENT_NOT_FOUND' },
    {
      title: "the other patient's view of this patient's document",
      path: () => pathOf(otherPatientId, doc.id),
      code: 'DOCUMENT_NOT_FOUND',
    },
    { title: 'an unknown patient', path: () => pathOf(randomUUID(), doc.id), code: 'PATIENT_NOT_FOUND' },
    { title: 'an unknown patient and an unknown document', path: () => pathOf(randomUUID(), randomUUID()), code: 'PATIENT_NOT_FOUND' },
  ];
  for (const { title, path, code } of notFound) {
    it(`answers 404 ${code} for ${title}`, async () => {
      const response = await server.request('GET', path());
      assert.equal(response.status, 404, response.text);
      assert.equal(response.body.detail.code, code);
      assert.equal(response.headers.get('etag'), null);
    });
  }

  it('answers DELETE with 405 and Allow naming GET', async () => {
    const response = await server.request('DELETE', pathOf(patientId, doc.id));
    assert.equal(response.status, 405, response.text);
    assert.match(response.headers.get('allow') ?? '', /\bGET\b/);
  });

  it('refuses malformed ids with 422 uuid_parsing at their path parameters', async () => {
    const response = await server.request('GET', pathOf('P-1', 'scan.pdf'));
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body), [
      ['uuid_parsing', ['path', 'patient_id']],
      ['uuid_parsing', ['path', 'document_id']],
    ]);
  });
});

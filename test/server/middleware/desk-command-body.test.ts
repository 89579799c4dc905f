import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { removeFile } from '../../../src/db/document-files.js';
import { silentLogger } from '../../../src/logger.js';
import type { ClinicState } from '../../../src/server/api/state.js';
import { receiveDeskCommand } from '../../../src/server/middleware/desk-command-body.js';
import { handleErrors } from '../../../src/server/middleware/handle-errors.js';
import { useKoaApp } from '../../helpers/fixtures.js';
import { multipartBody, type FormPart } from '../../helpers/multipart.js';
import { makeDataDir } from '../../helpers/fixtures.js';

/**
 * The body of POST /desk/commands (clinic-api-1.3.md, "Commands on a desk PC"): `{"argv": […]}` as
 * JSON, or a form whose part `command` holds it and whose file parts, named by their option, hold
 * the desk PC's files, each streamed to a temporary file of the data directory and hashed; under
 * the usual limits, a refused form leaving nothing behind.
 */

const FILE_LIMIT = 1024;
const JSON_LIMIT = 256;

describe('server: reading a desk command and its files', () => {
  let dataDir: string;
  before(() => {
    dataDir = makeDataDir();
  });
  const served = useKoaApp(() => {
    const app = new Koa<ClinicState>();
    app.use(handleErrors(silentLogger));
    app.use(receiveDeskCommand({ dataDir, jsonBodyLimitBytes: JSON_LIMIT, documentLimitBytes: FILE_LIMIT, logger: silentLogger }));
    app.use(async (ctx) => {
      // What the command is given: its line and its files, which the caller removes once it ends.
      const files = ctx.state.deskFiles ?? [];
      ctx.body = { body: ctx.state.body, files: files.map((file) => ({ ...file, content: readFileSync(file.path, 'utf8') })) };
      await Promise.all(files.map((file) => removeFile(file.path)));
    });
    return app;
  });
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The temporary files left in the data directory. */
  const leftBehind = () => readdirSync(join(dataDir, 'tmp'));
  /**
   * The temporary files still there once the refused part's own removal has run: a file part cut
   * at the limit is removed by its writer, which may finish a moment after the 413 is sent.
   */
  const leftBehindOnceRemoved = async () => {
    for (const deadline = performance.now() + 2000; leftBehind().length > 0 && performance.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return leftBehind();
  };

  const post = async (body: string | Buffer, contentType: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${served.base}/desk/commands`, {
      method: 'POST',
      body,
      headers: { 'content-type': contentType, ...headers },
    });
    return { status: response.status, connection: response.headers.get('connection'), body: (await response.json()) as any };
  };
  const postForm = (parts: FormPart[]) => {
    const form = multipartBody(parts);
    return post(form.body, form.contentType);
  };
  const command = (argv: string[]): FormPart => ({ name: 'command', contentType: 'application/json', data: JSON.stringify({ argv }) });
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('reads a JSON body as any JSON operation does, with no files', async () => {
    const answer = await post(JSON.stringify({ argv: ['patient', 'find', 'Müller'] }), 'application/json');
    assert.deepEqual([answer.status, answer.body], [200, { body: { argv: ['patient', 'find', 'Müller'] }, files: [] }]);
  });

  it('streams each file part to a temporary file of the data directory, with its option, its desk PC name and SHA-256', async () => {
    const argv = ['upload-document', '--patient-id', 'P-42', '--file', '/home/rita/Befund März.pdf'];
    const answer = await postForm([
      command(argv),
      { name: 'file', filenameStar: "utf-8''Befund%20M%C3%A4rz.pdf", contentType: 'application/pdf', data: '%PDF-1.4 Befund' },
      { name: 'token-file', filename: 'C:\\Users\\rita\\twilio.txt', data: 's3cret' },
    ]);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.body, { argv });
    assert.deepEqual(
      answer.body.files.map((file: Record<string, string>) => [file.option, file.name, file.sha256, file.content]),
      [
        ['file', 'Befund März.pdf', sha256('%PDF-1.4 Befund'), '%PDF-1.4 Befund'],
        ['token-file', 'twilio.txt', sha256('s3cret'), 's3cret'],
      ],
    );
    for (const file of answer.body.files) assert.equal(join(file.path, '..'), join(dataDir, 'tmp'), file.path);
    assert.deepEqual(leftBehind(), []);
  });

  it('takes a file of exactly the document limit, and refuses one byte more with 413 DOCUMENT_TOO_LARGE, closing the connection', async () => {
    const full = await postForm([command(['upload-document']), { name: 'file', filename: 'a.pdf', data: 'x'.repeat(FILE_LIMIT) }]);
    assert.equal(full.status, 200, JSON.stringify(full.body));
    assert.equal(full.body.files[0].content.length, FILE_LIMIT);
    const over = await postForm([command(['upload-document']), { name: 'file', filename: 'a.pdf', data: 'x'.repeat(FILE_LIMIT + 1) }]);
    assert.deepEqual([over.status, over.body.detail.code, over.connection], [413, 'DOCUMENT_TOO_LARGE', 'close']);
    assert.deepEqual(await leftBehindOnceRemoved(), []);
  });

  it('refuses a command part over the JSON limit, and a Content-Length over what a form may hold unread, with 413 PAYLOAD_TOO_LARGE', async () => {
    const long = await postForm([{ name: 'command', data: JSON.stringify({ argv: ['x'.repeat(JSON_LIMIT)] }) }]);
    assert.deepEqual([long.status, long.body.detail.code], [413, 'PAYLOAD_TOO_LARGE']);
    const mostBytes = FILE_LIMIT * 2 + JSON_LIMIT + 64 * 1024;
    const form = multipartBody([command(['upload-document']), { name: 'file', filename: 'a.pdf', data: 'x'.repeat(mostBytes) }]);
    const huge = await post(form.body, form.contentType);
    assert.deepEqual(
      [huge.status, huge.body.detail, huge.connection],
      [413, { code: 'PAYLOAD_TOO_LARGE', message: `The request body is larger than ${mostBytes} bytes.` }, 'close'],
    );
    assert.deepEqual(leftBehind(), []);
  });

  it('refuses a form that is not a command with its files with a 422 at body, leaving no file behind', async () => {
    const pdf = (name: string): FormPart => ({ name, filename: 'a.pdf', data: '%PDF' });
    const refused: [string, FormPart[]][] = [
      ['no command part', [pdf('file')]],
      ['a file part named by no option', [command(['backup']), pdf('etc-passwd')]],
      ['a command that is no JSON', [{ name: 'command', data: '{"argv": [' }, pdf('file')]],
      ['a text part besides the command', [command(['backup']), { name: 'note', data: 'hi' }]],
    ];
    for (const [title, parts] of refused) {
      const answer = await postForm(parts);
      assert.equal(answer.status, 422, `${title}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.detail[0].loc[0], 'body', title);
      assert.deepEqual(leftBehind(), [], title);
    }
    const form = multipartBody([command(['upload-document']), pdf('file')]);
    const cut = await post(form.body.subarray(0, form.body.length - 40), form.contentType);
    assert.deepEqual([cut.status, cut.body.detail[0].loc], [422, ['body']]);
    assert.deepEqual(leftBehind(), [], 'a form that ended early');
  });
});

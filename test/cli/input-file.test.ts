// A `--file` the desk reads (src/cli/input-file.ts): `upload-document --file`, `create-patient --file`, `sms-gateway set --token-file`; on the server for a desk PC only the files it sent (clinic-api-1.3.md, "Commands on a desk PC": input files).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InvalidArgumentError } from 'commander';
import { runForDeskPc } from '../../src/cli/desk-identity.js';
import { parseFilePath } from '../../src/cli/input-file.js';
import { useTestDatabase } from '../helpers/fixtures.js';

describe('the file a desk command reads (parseFilePath)', () => {
  const data = useTestDatabase();
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'clinic-input-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('takes a regular file as typed, an empty one too (the upload says DOCUMENT_EMPTY)', () => {
    const scan = join(folder, 'Überweisung.pdf');
    writeFileSync(scan, '%PDF-1.4\n');
    assert.equal(parseFilePath(scan), scan);
    writeFileSync(join(folder, 'empty.pdf'), '');
    assert.equal(parseFilePath(join(folder, 'empty.pdf')), join(folder, 'empty.pdf'));
  });

  it('refuses as usage (exit 2) a path with nothing there, saying so with the system code', () => {
    assert.throws(() => parseFilePath(join(folder, 'no-such.pdf')), {
      constructor: InvalidArgumentError,
      message: 'there is no such file (ENOENT)',
    });
    writeFileSync(join(folder, 'a-file'), 'x');
    assert.throws(() => parseFilePath(join(folder, 'a-file', 'x.pdf')), {
      message: 'a part of that path is a file, not a folder (ENOTDIR)',
    });
  });

  it('refuses a folder and a device, which are no file to upload', () => {
    mkdirSync(join(folder, 'scans'));
    assert.throws(() => parseFilePath(join(folder, 'scans')), { message: 'it is a folder, not a file' });
    assert.throws(() => parseFilePath('/dev/null'), { message: 'it is not a regular file' });
  });

  it("on the server for a desk PC reads only the copies of the files that PC sent, never a file of the server's", async () => {
    const sent = join(folder, 'upload-1.part');
    writeFileSync(sent, 'the desk PC file');
    const serversOwn = join(folder, 'server-secret.txt');
    writeFileSync(serversOwn, 'only on the server');
    const deskPc = {
      db: data.db,
      caller: { source: 'api' as const, actor: null, roles: ['reception' as const] },
      files: new Map([[sent, 'Überweisung Lena.pdf']]),
    };
    assert.equal(await runForDeskPc(deskPc, async () => parseFilePath(sent)), sent);
    await runForDeskPc(deskPc, async () => {
      assert.throws(() => parseFilePath(serversOwn), {
        message: 'the file was not sent with the command: a desk PC sends the file its --file names',
      });
    });
    assert.equal(parseFilePath(serversOwn), serversOwn, 'at the server PC itself its own files are read');
  });
});

// Document bytes as files in the data directory (decisions.md §6; clinic-api-1.1.md, document
// downloads): an upload's temporary file, its move into documents/<patient_id>/<document_id>,
// and the links planted in the data directory that are never followed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import {
  createTempFile,
  documentFilePath,
  listTempFiles,
  moveIntoPlace,
  openDocumentFile,
  persistTempFile,
  removeFile,
  tempFilePath,
  writeChunk,
} from '../../src/db/document-files.js';
import { AppError } from '../../src/errors.js';
import { useDataDirs } from '../helpers/fixtures.js';

/** The code of the AppError `error` is, or `error` itself. */
const codeOf = (error: unknown) => (error instanceof AppError ? error.code : error);

/** Writes `content` as document `documentId`'s upload and puts it in place for `patientId`, as an upload does once its row is committed. */
async function storeDocument(dataDir: string, patientId: string, documentId: string, content: string): Promise<void> {
  const temp = await createTempFile(dataDir, documentId);
  await writeChunk(temp.handle, Buffer.from(content));
  await persistTempFile(dataDir, temp);
  await moveIntoPlace(dataDir, temp.path, patientId, documentId);
}

describe('document files (db)', () => {
  const newDataDir = useDataDirs();
  const umask = process.umask();
  afterEach(() => process.umask(umask));

  it("writes an upload to tmp/<document id>.<writer's pid>.part, shared with the group whatever the umask, and never over another", async () => {
    const dataDir = newDataDir();
    const documentId = randomUUID();
    process.umask(0o077);
    const temp = await createTempFile(dataDir, documentId);
    await temp.handle.close();
    assert.equal(temp.path, join(dataDir, 'tmp', `${documentId}.${process.pid}.part`));
    assert.equal(temp.path, tempFilePath(dataDir, documentId));
    if (process.platform !== 'win32') assert.equal(statSync(temp.path).mode & 0o777, 0o660);
    await assert.rejects(createTempFile(dataDir, documentId), { code: 'EEXIST' });
  });

  it('puts an upload in place under documents/<patient_id>/<document_id> with all its bytes, leaving nothing in tmp/', async () => {
    const dataDir = newDataDir();
    const [patientId, documentId] = [randomUUID(), randomUUID()];
    const content = 'x'.repeat(300_000);
    await storeDocument(dataDir, patientId, documentId, content);
    assert.equal(documentFilePath(dataDir, patientId, documentId), join(dataDir, 'documents', patientId, documentId));
    const file = await openDocumentFile(dataDir, patientId, documentId);
    try {
      assert.equal((await file.readFile()).toString(), content);
    } finally {
      await file.close();
    }
    assert.deepEqual(readdirSync(join(dataDir, 'tmp')), []);
    assert.deepEqual(await listTempFiles(dataDir), []);
  });

  it('counts a move whose temporary file another process put in place already as done, and refuses one with neither', async () => {
    const dataDir = newDataDir();
    const [patientId, documentId] = [randomUUID(), randomUUID()];
    await storeDocument(dataDir, patientId, documentId, 'finished by the server starting meanwhile');
    await moveIntoPlace(dataDir, tempFilePath(dataDir, documentId), patientId, documentId);
    await assert.rejects(moveIntoPlace(dataDir, tempFilePath(dataDir, documentId), patientId, randomUUID()), { code: 'ENOENT' });
  });

  it("serves no file through a link planted in the data directory: the file, the patient's folder or documents/ (STORAGE_FAILED)", async () => {
    const dataDir = newDataDir();
    const secret = join(newDataDir(), 'secret.txt');
    writeFileSync(secret, 'not a document');
    const [patientId, documentId] = [randomUUID(), randomUUID()];
    await storeDocument(dataDir, patientId, documentId, 'a real document');
    const linkedFile = randomUUID();
    symlinkSync(secret, documentFilePath(dataDir, patientId, linkedFile));
    await assert.rejects(openDocumentFile(dataDir, patientId, linkedFile), (error) => codeOf(error) === 'STORAGE_FAILED');

    const linkedPatient = randomUUID();
    symlinkSync(join(dataDir, 'documents', patientId), join(dataDir, 'documents', linkedPatient));
    await assert.rejects(openDocumentFile(dataDir, linkedPatient, documentId), (error) => codeOf(error) === 'STORAGE_FAILED');

    const elsewhere = newDataDir();
    symlinkSync(join(dataDir, 'documents'), join(elsewhere, 'documents'));
    await assert.rejects(openDocumentFile(elsewhere, patientId, documentId), (error) => codeOf(error) === 'STORAGE_FAILED');
  });

  it('moves no upload into a documents/ that is a link, and leaves its temporary file where it was', async () => {
    const dataDir = newDataDir();
    const target = newDataDir();
    symlinkSync(target, join(dataDir, 'documents'));
    const documentId = randomUUID();
    const temp = await createTempFile(dataDir, documentId);
    await persistTempFile(dataDir, temp);
    await assert.rejects(moveIntoPlace(dataDir, temp.path, randomUUID(), documentId), (error) => codeOf(error) === 'STORAGE_FAILED');
    assert.deepEqual(readdirSync(target), []);
    assert.equal(existsSync(temp.path), true, 'the temporary file stays for the upload to remove');
  });

  it('lists what tmp/ holds, sorted, with the document id and writer each name carries, passing over folders and links', async () => {
    const dataDir = newDataDir();
    assert.deepEqual(await listTempFiles(dataDir), [], 'no tmp/ yet');
    const tmp = join(dataDir, 'tmp');
    mkdirSync(tmp);
    const [newer, older] = ['b0000000-0000-4000-8000-000000000000', 'a0000000-0000-4000-8000-000000000000'];
    writeFileSync(join(tmp, `${newer}.4242.part`), '12345');
    writeFileSync(join(tmp, `${older}.part`), '1');
    writeFileSync(join(tmp, 'notes.txt'), '');
    mkdirSync(join(tmp, `${randomUUID()}.part`));
    symlinkSync(join(tmp, 'notes.txt'), join(tmp, `${randomUUID()}.7.part`));
    const entries = await listTempFiles(dataDir);
    assert.deepEqual(
      entries.map(({ path, documentId, writerPid, size }) => [path, documentId, writerPid, size]),
      [
        [join(tmp, `${older}.part`), older, undefined, 1],
        [join(tmp, `${newer}.4242.part`), newer, 4242, 5],
        [join(tmp, 'notes.txt'), undefined, undefined, 0],
      ],
    );
  });

  it('refuses to list a tmp/ that is a link (DATA_DIRECTORY_UNSAFE), and removes a file already gone without complaint', async () => {
    const dataDir = newDataDir();
    symlinkSync(newDataDir(), join(dataDir, 'tmp'));
    await assert.rejects(listTempFiles(dataDir), (error) => codeOf(error) === 'DATA_DIRECTORY_UNSAFE');
    await removeFile(join(dataDir, 'never-there.part'));
  });
});

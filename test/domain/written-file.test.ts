// src/domain/written-file.ts: a file of patient data the desk writes, whole or not at all (clinic-api-1.3.md, "Commands on a desk PC").
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeFileWhole, type FileBeingWritten } from '../../src/domain/written-file.js';
import { AppError, errors } from '../../src/errors.js';
import { useDataDirs } from '../helpers/fixtures.js';

// A file of patient data the desk writes (`clinic document save`, `clinic audit export`): whole or
// not at all, never over a file it was not told to replace, readable by this user only.

/** Writes `text` in two chunks, as a streamed copy does. */
const fillWith = (text: string) => async (file: FileBeingWritten) => {
  const half = Math.floor(text.length / 2);
  await file.write(Buffer.from(text.slice(0, half)));
  await file.write(Buffer.from(text.slice(half)));
  return text.length;
};

/** The coded refusal `promise` rejects with. */
async function refusalOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof AppError, `a coded refusal, not ${String(error)}`);
  return error;
}

describe('writing a file whole', () => {
  const folder = useDataDirs();

  it("writes the file whole, readable by this user only, and leaves nothing else in its folder; fill's result is returned", async () => {
    const dir = folder();
    const target = join(dir, 'trail.ndjson');
    assert.equal(await writeFileWhole(target, { replace: false }, fillWith('{"seq":1}\n{"seq":2}\n')), 20);
    assert.equal(readFileSync(target, 'utf8'), '{"seq":1}\n{"seq":2}\n');
    assert.equal(statSync(target).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['trail.ndjson'], 'no temporary file left');
  });

  it('refuses a name that is taken (409 FILE_EXISTS) without replace, before anything is read or written', async () => {
    const dir = folder();
    const target = join(dir, 'scan.pdf');
    writeFileSync(target, 'the clinic letter');
    let filled = false;
    const refusal = await refusalOf(
      writeFileWhole(target, { replace: false }, async () => {
        filled = true;
      }),
    );
    assert.deepEqual([refusal.code, refusal.status], ['FILE_EXISTS', 409]);
    assert.equal(filled, false, 'nothing read');
    assert.equal(readFileSync(target, 'utf8'), 'the clinic letter', 'left as it was');
    assert.deepEqual(readdirSync(dir), ['scan.pdf']);
  });

  it('replaces a file with replace only once its replacement is whole: a failure half-way keeps the old one', async () => {
    const dir = folder();
    const target = join(dir, 'scan.pdf');
    writeFileSync(target, 'the old copy');
    const failing = async (file: FileBeingWritten) => {
      await file.write(Buffer.from('half of the'));
      throw errors.documentFileDamaged();
    };
    const refusal = await refusalOf(writeFileWhole(target, { replace: true }, failing));
    assert.equal(refusal.code, 'DOCUMENT_FILE_DAMAGED', "fill's refusal passes as it is");
    assert.equal(readFileSync(target, 'utf8'), 'the old copy');
    assert.deepEqual(readdirSync(dir), ['scan.pdf'], 'no temporary file left');
    await writeFileWhole(target, { replace: true }, fillWith('the new copy'));
    assert.equal(readFileSync(target, 'utf8'), 'the new copy');
  });

  it('leaves no file under the name it reserved when fill fails, and a failing source fails as itself', async () => {
    const dir = folder();
    const target = join(dir, 'copy.pdf');
    const error = await writeFileWhole(target, { replace: false }, async (file) => {
      await file.write(Buffer.from('%PDF'));
      await readFile(join(dir, 'no-such-upload'));
    }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOENT', "the source's failure, not the target's");
    assert.deepEqual(readdirSync(dir), []);
  });

  it('names the target (500 FILE_UNWRITABLE) when its folder cannot take it', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'exports'), 'a file where a folder was meant');
    const target = join(dir, 'exports', 'trail.ndjson');
    const refusal = await refusalOf(writeFileWhole(target, { replace: false }, fillWith('x')));
    assert.deepEqual([refusal.code, refusal.status], ['FILE_UNWRITABLE', 500]);
    assert.ok(refusal.message.startsWith(`${target} cannot be written: `), refusal.message);
    const replacing = await refusalOf(writeFileWhole(target, { replace: true }, fillWith('x')));
    assert.equal(replacing.code, 'FILE_UNWRITABLE', 'with replace too');
  });
});

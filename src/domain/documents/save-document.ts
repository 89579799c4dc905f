import { createHash } from 'node:crypto';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { openDocumentFile, removeFile, syncDirectory, syncRenamed, writeChunk } from '../../db/document-files.js';
import type { DocumentRow } from '../../db/documents.js';
import { errors } from '../errors.js';

/** How a copy may be written. */
export interface SaveOptions {
  /** Replace a file already at the target (else 409 FILE_EXISTS, and nothing is written). */
  replace: boolean;
}

/** Creates `path` anew, or says it is there: the reservation of a name that must not be taken twice. */
async function createNew(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw errors.fileExists(path);
    throw error;
  }
}

/**
 * Writes a stored document's bytes to `target` (an absolute path in a folder that exists),
 * streamed, never whole in memory. The bytes go to a temporary file beside the target and are
 * checked against the size and SHA-256 recorded at upload (500 DOCUMENT_FILE_DAMAGED, nothing
 * left behind, if they differ); only then is the temporary file renamed to the target, so a file
 * replaced with `replace` is kept until its replacement is whole. Without `replace` the target's
 * name is taken first, exclusively (409 FILE_EXISTS if it is there), so a file made meanwhile is
 * never overwritten. The copy is readable by this user only, as patient data is in the data
 * directory. A missing stored file is 500 STORAGE_FAILED, as for the API's download.
 */
export async function saveDocumentCopy(dataDir: string, document: DocumentRow, target: string, { replace }: SaveOptions): Promise<void> {
  const reserved = replace ? undefined : await createNew(target);
  await reserved?.close();
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.part`);
  let tempMade = false;
  let written = false;
  try {
    const source = await openDocumentFile(dataDir, document.patient_id, document.id);
    try {
      const copy = await createNew(temp);
      tempMade = true;
      try {
        const hash = createHash('sha256');
        let size = 0;
        for await (const chunk of source.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          size += chunk.length;
          await writeChunk(copy, chunk);
        }
        if (size !== document.size || hash.digest('hex') !== document.sha256) throw errors.documentFileDamaged();
        await copy.sync();
      } finally {
        await copy.close();
      }
    } finally {
      await source.close();
    }
    await rename(temp, target);
    written = true;
    await syncDirectory(dirname(target));
    await syncRenamed(target);
  } catch (error) {
    if (!written) {
      if (tempMade) await removeFile(temp);
      if (reserved !== undefined) await removeFile(target);
    }
    throw error;
  }
}

import { createHash } from 'node:crypto';
import { openDocumentFile } from '../../db/document-files.js';
import type { DocumentRow } from '../../db/documents.js';
import { errors } from '../../errors.js';
import { writeFileWhole, type WriteOptions } from '../written-file.js';

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
export async function saveDocumentCopy(dataDir: string, document: DocumentRow, target: string, options: WriteOptions): Promise<void> {
  const source = await openDocumentFile(dataDir, document.patient_id, document.id);
  try {
    await writeFileWhole(target, options, async (copy) => {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of source.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
        await copy.write(chunk);
      }
      if (size !== document.size || hash.digest('hex') !== document.sha256) throw errors.documentFileDamaged();
    });
  } finally {
    await source.close();
  }
}

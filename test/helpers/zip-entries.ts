import yauzl from 'yauzl';

/** One file of a ZIP archive: its name, whether it was stored uncompressed, and its bytes. */
export interface ZipEntry {
  name: string;
  stored: boolean;
  bytes: Buffer;
}

/** Every file of a ZIP archive, in the archive's order; rejects an archive that is not whole. */
export function zipEntries(archive: Buffer): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(archive, { lazyEntries: true, validateEntrySizes: true }, (error, zip) => {
      if (error) return reject(error);
      const entries: ZipEntry[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (openError, stream) => {
          if (openError) return reject(openError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.push({ name: entry.fileName, stored: entry.compressionMethod === 0, bytes: Buffer.concat(chunks) });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

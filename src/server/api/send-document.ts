import { documentMediaType, OCTET_STREAM } from '../../domain/documents/media-type.js';
import type { OpenedDocument } from '../../domain/documents/read-documents.js';
import { ifNoneMatchNames } from './static-file.js';
import type { ClinicContext } from './state.js';

/**
 * RFC 8187's attr-char: what encodeURIComponent leaves but a `filename*` value may not hold. A
 * lone surrogate (which encodeURIComponent throws on) becomes U+FFFD first.
 */
const encodeExtValue = (text: string) =>
  encodeURIComponent(text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * RFC 6266 §4.3's fallback for a client that does not read `filename*` (curl -OJ): the name with
 * each code point outside printable ASCII, each quote and each backslash as one `_`.
 */
const asciiFilename = (text: string) => Array.from(text, (c) => (/^[\x20-\x7e]$/.test(c) && c !== '"' && c !== '\\' ? c : '_')).join('');

/** A SHA-256 as the program stores it; anything else (an old or edited database) gets no ETag. */
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Sends an opened document (clinic-api-1.1.md): its bytes streamed from the file, never read
 * whole, with the type it was stored with, its length, its name for the save dialog (as ASCII
 * for old clients and in full in `filename*`) and its
 * SHA-256 as ETag; or 304 when If-None-Match names that ETag. `recordRead` stores the audit event
 * of a 200 before anything is sent; when it fails, nothing of the file is. Patient data is stored by
 * no cache (`Cache-Control: no-store`, set for every keyed answer: src/server/middleware/no-store.ts);
 * a client that kept its own copy may still ask If-None-Match and get a 304.
 */
export async function sendDocument(ctx: ClinicContext, { document, file }: OpenedDocument, recordRead: () => Promise<void>): Promise<void> {
  try {
    const etag = SHA256.test(document.sha256) ? `"${document.sha256}"` : undefined;
    if (etag !== undefined) ctx.set('ETag', etag);
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (etag !== undefined && ifNoneMatchNames(ctx.get('If-None-Match') || undefined, etag)) {
      void file.close();
      ctx.status = 304;
      return;
    }
    // A 304 shows nothing; a 200 records its document.read, committed before the first byte.
    await recordRead();
    ctx.status = 200;
    // Set before the body, so that Koa keeps it as stored instead of adding a charset or guessing.
    // A value stored before types were checked at the door (media-type.ts) that is no media type
    // (a line break, 16 KB) would make node:http throw: it is served as bytes instead.
    ctx.set('Content-Type', documentMediaType(document.content_type) === undefined ? OCTET_STREAM : document.content_type);
    ctx.set(
      'Content-Disposition',
      `attachment; filename="${asciiFilename(document.filename)}"; filename*=UTF-8''${encodeExtValue(document.filename)}`,
    );
    ctx.length = document.size;
  } catch (error) {
    // Nothing may leave the file open: a FileHandle closed only by the garbage collector is an fd
    // held until then, and a DEP0137 warning.
    void file.close();
    throw error;
  }
  // The stream closes the file when it ends, fails or the client goes away.
  ctx.body = file.createReadStream();
}

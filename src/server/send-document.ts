import type { OpenedDocument } from '../domain/documents/read-documents.js';
import { ifNoneMatchNames } from './static-file.js';
import type { ClinicContext } from './state.js';

/** RFC 8187's attr-char: what encodeURIComponent leaves but a `filename*` value may not hold. */
const encodeExtValue = (text: string) =>
  encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Sends an opened document (clinic-api-1.1.md): its bytes streamed from the file, never read
 * whole, with the type it was stored with, its length, its name for the save dialog and its
 * SHA-256 as ETag; or 304 when If-None-Match names that ETag. Patient data is never cached by a
 * shared cache (`private`), and the browser must revalidate (`no-cache`), which costs a 304.
 */
export function sendDocument(ctx: ClinicContext, { document, file }: OpenedDocument): void {
  const etag = `"${document.sha256}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (ifNoneMatchNames(ctx.get('If-None-Match') || undefined, etag)) {
    void file.close();
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  // Set before the body, so that Koa keeps it as stored instead of adding a charset or guessing.
  ctx.set('Content-Type', document.content_type);
  ctx.set('Content-Disposition', `attachment; filename*=UTF-8''${encodeExtValue(document.filename)}`);
  // The stream closes the file when it ends, fails or the client goes away.
  ctx.body = file.createReadStream();
  ctx.length = document.size;
}

import { createHash } from 'node:crypto';
import type { ClinicContext } from './state.js';

/** A response body made once at start-up and sent as is: the OpenAPI document and the docs page. */
export interface StaticFile {
  contentType: string;
  body: Buffer;
  readonly etag: string;
  /** Further headers, such as the docs page's Content-Security-Policy. */
  headers?: Readonly<Record<string, string>>;
}

/** A StaticFile of `content` (text as UTF-8). */
export function staticFile(contentType: string, content: string | Uint8Array, headers?: Readonly<Record<string, string>>): StaticFile {
  // Bytes are sent as they are, without a copy (the executable's docs assets are a view of its own file).
  const body =
    typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  let etag: string | undefined;
  return {
    contentType,
    body,
    // Hashed when first asked for: the docs page's 1.9 MB of assets are rarely requested, and
    // hashing them at start-up would cost its time and bring their pages into memory.
    get etag() {
      return (etag ??= `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`);
    },
    ...(headers ? { headers } : {}),
  };
}

/**
 * Whether an If-None-Match header names `etag` (or is `*`). Compared weakly, as RFC 9110
 * §13.1.2 asks; the request's Cache-Control does not matter: the origin server answers the
 * precondition anyway (browsers' fetch() sends `no-cache` with a revalidation).
 */
export function ifNoneMatchNames(header: string | undefined, etag: string): boolean {
  if (header === undefined || header === '') return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/**
 * Answers with `file`, or 304 when the client's copy is current. Files that change only with the
 * program are revalidated (`no-cache`) rather than cached for a time: an upgraded program then
 * never pairs a cached old page with a new document. A matching If-None-Match costs a 304
 * without the body.
 */
export function sendStaticFile(ctx: ClinicContext, file: StaticFile): void {
  ctx.status = 200;
  ctx.set('ETag', file.etag);
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  for (const [name, value] of Object.entries(file.headers ?? {})) ctx.set(name, value);
  if (ifNoneMatchNames(ctx.get('If-None-Match') || undefined, file.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.contentType;
  ctx.body = file.body;
}

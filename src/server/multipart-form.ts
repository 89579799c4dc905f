/**
 * A streaming reader of multipart/form-data (RFC 7578) that reads each byte once and yields the
 * form's parts in order: text fields whole, files as a stream of their bytes that the consumer
 * reads before asking for the next part. It exists because the multipart parser under
 * @koa/multer (busboy) reports a file part that declares no Content-Type as `text/plain`, the
 * RFC's default, and so cannot tell it from one that declared `text/plain`; decisions.md §6 makes
 * the former `application/octet-stream`, which took a second parser over every byte. Here the
 * part headers are at hand. It keeps the rules the upload had with busboy and multer: the same
 * limits, `filename*=` (RFC 5987) before `filename=`, header values as UTF-8, the WHATWG escapes
 * %0A, %0D and %22 in names reversed, a file part without a name ignored, a repeated field a list.
 */

/** Bounds on a form, all counted as the bytes arrive. */
export interface MultipartLimits {
  /** Parts in all, text fields, file parts. */
  parts: number;
  fields: number;
  files: number;
  /** Bytes of a field's name and of its value. */
  fieldNameBytes: number;
  fieldValueBytes: number;
  /** Bytes of one part's header block, and header lines in it. */
  headerBytes: number;
  headerPairs: number;
}

/** One part of a form. */
export type FormPart =
  | { kind: 'field'; name: string; value: string }
  | {
      kind: 'file';
      name: string;
      /** The client's name for the file, as sent (a path, perhaps); empty when a browser sent no file. */
      filename: string;
      /** The part's declared media type (type/subtype, lower case), or undefined when it declared none. */
      contentType: string | undefined;
      /** The file's bytes: read them to the end (or give up on the whole form) before the next part. */
      data: AsyncIterable<Buffer>;
    };

/** Why a form was refused; the upload middleware turns each into the API's 422. */
export class MultipartError extends Error {
  constructor(
    readonly reason: 'malformed' | 'too_many_parts' | 'unnamed_field' | 'field_too_long',
    /** The field a `field_too_long` is about. */
    readonly field?: string,
  ) {
    super(`multipart/form-data: ${reason}${field === undefined ? '' : ` (${field})`}`);
    this.name = 'MultipartError';
  }
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
/**
 * A part's header line: any byte but a bare CR or LF. Busboy also refuses control characters,
 * but fetch's FormData writes them raw into a file name (it escapes only LF, CR and `"`), and
 * decisions.md §6 removes them from the name rather than refusing the upload.
 */
const HEADER_LINE = /^[^\r\n]*$/;

/** The boundary of a multipart Content-Type header, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}

/** The WHATWG form encoding escapes LF, CR and `"` in names; nothing else is decoded (`50%.pdf` stays). */
const unescapeFormName = (text: string) =>
  text.replace(/%0A|%0D|%22/gi, (escape) => ({ '%0A': '\n', '%0D': '\r' })[escape.toUpperCase()] ?? '"');

/** Text of header bytes (read as latin1, byte for byte) taken as UTF-8, as browsers send names. */
const asUtf8 = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8');

/**
 * The parameters of a Content-Disposition value (`form-data; name="x"; filename*=utf-8''a%20b`),
 * or undefined when it is not form-data or is malformed. Quoted values take backslash escapes;
 * `filename*` values are percent-decoded in their charset (UTF-8 or ISO-8859-1).
 */
function formDisposition(value: string): Map<string, string> | undefined {
  const match = /^\s*form-data\s*(;.*)?$/is.exec(value);
  if (!match) return undefined;
  const params = new Map<string, string>();
  const pattern = /;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s"]*))\s*/gy;
  const rest = match[1] ?? '';
  pattern.lastIndex = 0;
  while (pattern.lastIndex < rest.length) {
    const param = pattern.exec(rest);
    if (!param) return undefined;
    const name = param[1]!.toLowerCase();
    // In a quoted value only \" and \\ are escapes; any other backslash is kept (Windows paths).
    let text = param[2] !== undefined ? param[2].replace(/\\(["\\])/g, '$1') : param[3]!;
    if (name.endsWith('*')) {
      const extended = /^([\w!#$%&+^`{}~-]*)'[^']*'(.*)$/.exec(text);
      if (!extended) return undefined;
      const charset = extended[1]!.toLowerCase();
      if (/%(?![0-9a-f]{2})/i.test(extended[2]!)) return undefined;
      const bytes = Buffer.from(
        extended[2]!.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      );
      text = charset === 'iso-8859-1' || charset === 'latin1' ? bytes.toString('latin1') : bytes.toString('utf8');
    } else text = asUtf8(text);
    if (!params.has(name)) params.set(name, text);
  }
  return params;
}

/** `type/subtype` of a Content-Type value in lower case, or `text/plain` (busboy's reading) when it cannot be read. */
function mediaType(value: string): string {
  const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\/([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:;|$)/.exec(value);
  return match ? `${match[1]}/${match[2]}`.toLowerCase() : 'text/plain';
}

/** A part's header block as lower-case names and their first values; undefined when malformed. */
function parseHeaders(block: Buffer, limits: MultipartLimits): Map<string, string> | undefined {
  const headers = new Map<string, string>();
  const lines = block.toString('latin1').split('\r\n');
  if (lines.length > limits.headerPairs) return undefined;
  for (const line of lines) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0 || !HEADER_LINE.test(line)) return undefined;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** Pulls a request's chunks into one buffer on demand. */
class Chunks {
  buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Appends the next chunk; false once the body has ended. */
  async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.source.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.buffer = this.buffer.length === 0 ? next.value : Buffer.concat([this.buffer, next.value]);
    return true;
  }

  /** Takes `length` bytes off the front. */
  take(length: number): Buffer {
    const taken = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    return taken;
  }

  /** Makes at least `length` bytes available; false when the body ends first. */
  async need(length: number): Promise<boolean> {
    while (this.buffer.length < length) if (!(await this.more())) return false;
    return true;
  }
}

/**
 * The parts of the multipart body `body` (the request stream) delimited by `boundary`, in order.
 * Throws a MultipartError for a malformed or over-limit form, and whatever the stream throws (a
 * client that disconnects). A part's data must be read before the next part is asked for.
 */
export async function* readMultipartForm(body: AsyncIterable<Buffer>, boundary: string, limits: MultipartLimits): AsyncGenerator<FormPart> {
  const chunks = new Chunks(body[Symbol.asyncIterator]());
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  // The body starts with the first delimiter, or with a preamble and a line break before it.
  chunks.buffer = CRLF;
  const counts = { parts: 0, fields: 0, files: 0 };

  /** Skips to just after the next delimiter; false when the body ends first. */
  const skipToDelimiter = async (): Promise<boolean> => {
    for (;;) {
      const at = chunks.buffer.indexOf(delimiter);
      if (at >= 0) {
        chunks.take(at + delimiter.length);
        return true;
      }
      chunks.take(Math.max(0, chunks.buffer.length - delimiter.length + 1));
      if (!(await chunks.more())) return false;
    }
  };

  /** The part's data up to the next delimiter, which is consumed; throws if the body ends first. */
  async function* partData(): AsyncGenerator<Buffer> {
    for (;;) {
      const at = chunks.buffer.indexOf(delimiter);
      if (at >= 0) {
        if (at > 0) yield chunks.take(at);
        chunks.take(delimiter.length);
        return;
      }
      // Everything but a tail that may be the start of the delimiter can go now.
      const safe = chunks.buffer.length - delimiter.length + 1;
      if (safe > 0) yield chunks.take(safe);
      if (!(await chunks.more())) throw new MultipartError('malformed');
    }
  }

  if (!(await skipToDelimiter())) throw new MultipartError('malformed');
  for (;;) {
    // After a delimiter: `--` ends the form; else optional padding and a line break open a part.
    if (!(await chunks.need(2))) throw new MultipartError('malformed');
    if (chunks.buffer[0] === 0x2d && chunks.buffer[1] === 0x2d) return;
    for (;;) {
      const at = chunks.buffer.indexOf(CRLF);
      if (at >= 0) {
        if (chunks.buffer.subarray(0, at).some((byte) => byte !== 0x20 && byte !== 0x09)) throw new MultipartError('malformed');
        chunks.take(at + CRLF.length);
        break;
      }
      if (chunks.buffer.length > 256 || !(await chunks.more())) throw new MultipartError('malformed');
    }
    // The header block, up to an empty line (a part may have no headers at all).
    let headerBlock: Buffer;
    if (chunks.buffer.length < 2) await chunks.need(2);
    if (chunks.buffer[0] === 0x0d && chunks.buffer[1] === 0x0a) {
      headerBlock = Buffer.alloc(0);
      chunks.take(2);
    } else {
      for (;;) {
        const at = chunks.buffer.indexOf(HEADER_END);
        if (at >= 0) {
          if (at > limits.headerBytes) throw new MultipartError('malformed');
          headerBlock = chunks.take(at);
          chunks.take(HEADER_END.length);
          break;
        }
        if (chunks.buffer.length > limits.headerBytes || !(await chunks.more())) throw new MultipartError('malformed');
      }
    }
    const headers = parseHeaders(headerBlock, limits);
    if (headers === undefined) throw new MultipartError('malformed');
    if (++counts.parts > limits.parts) throw new MultipartError('too_many_parts');
    const disposition = formDisposition(headers.get('content-disposition') ?? '');
    const data = partData();
    if (disposition === undefined) {
      // Not a form field (no or another disposition): skipped, as busboy skips it.
      for await (const _chunk of data);
      continue;
    }
    const rawName = disposition.get('name');
    const filename = disposition.get('filename*') ?? disposition.get('filename');
    const declaredType = headers.get('content-type');
    if (filename !== undefined || (declaredType !== undefined && mediaType(declaredType) === 'application/octet-stream')) {
      if (++counts.files > limits.files) throw new MultipartError('too_many_parts');
      if (rawName === undefined) throw new MultipartError('unnamed_field');
      let read = false;
      const tracked = (async function* () {
        read = true;
        yield* data;
      })();
      // A file part without a file name is what a browser sends when no file was chosen.
      if (filename !== undefined && filename !== '') {
        yield {
          kind: 'file',
          name: unescapeFormName(rawName),
          filename: unescapeFormName(filename),
          contentType: declaredType === undefined ? undefined : mediaType(declaredType),
          data: tracked,
        };
      }
      if (!read) for await (const _chunk of data);
      continue;
    }
    if (++counts.fields > limits.fields) throw new MultipartError('too_many_parts');
    if (rawName === undefined || Buffer.byteLength(rawName) > limits.fieldNameBytes) throw new MultipartError('unnamed_field');
    const name = unescapeFormName(rawName);
    const pieces: Buffer[] = [];
    let size = 0;
    for await (const chunk of data) {
      size += chunk.length;
      if (size > limits.fieldValueBytes) throw new MultipartError('field_too_long', name);
      pieces.push(chunk);
    }
    const charset = /;\s*charset\s*=\s*"?([\w-]+)/i.exec(declaredType ?? '')?.[1]?.toLowerCase();
    const value = Buffer.concat(pieces).toString(charset === 'iso-8859-1' || charset === 'latin1' ? 'latin1' : 'utf8');
    yield { kind: 'field', name, value };
  }
}

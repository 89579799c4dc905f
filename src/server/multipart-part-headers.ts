/**
 * busboy reports a file part without a Content-Type header as `text/plain` (the multipart
 * default of RFC 7578), so that "declared text/plain" and "declared nothing" look the same; the
 * latter must be `application/octet-stream` (decisions.md §6). This watcher reads the same raw
 * bytes busboy reads and notes, for each part named `file` that carries a file name, whether it
 * declared a Content-Type. It only observes: it never changes what busboy parses.
 */

/** busboy's own bound on one part's header block; beyond it the watcher gives up (busboy fails too). */
const MAX_HEADER_BYTES = 16 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a multipart Content-Type header, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2];
}

/** A disposition parameter's value: quoted (with backslash escapes) or a bare token. */
function dispositionParam(disposition: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(disposition);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/** Watches a multipart body for the part headers of `file` parts. */
export class FilePartHeaderWatcher {
  private readonly delimiter: Buffer;
  /** Unsearched bytes carried to the next chunk: a delimiter or header block may span chunks. */
  private carry: Buffer;
  private state: 'body' | 'headers' | 'stopped' = 'body';
  /** For each `file` part with a file name, in order: whether it declared a Content-Type. */
  private readonly declared: boolean[] = [];

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    // The first delimiter may open the body, with no line break before it.
    this.carry = Buffer.from('\r\n');
  }

  /** Feeds the next chunk of the raw body. */
  push(chunk: Buffer): void {
    if (this.state === 'stopped') return;
    let data = chunk;
    if (this.carry.length > 0) {
      // Inside a part, the carried bytes matter only if a delimiter starts in them, so that seam
      // is searched alone (a chunk at least a delimiter long leaves a full carry of its own):
      // copying carry and chunk together cost an allocation and a copy per read of a document.
      const seamOnly =
        this.state === 'body' &&
        chunk.length >= this.delimiter.length &&
        !Buffer.concat([this.carry, chunk.subarray(0, this.delimiter.length - 1)]).includes(this.delimiter);
      if (!seamOnly) data = Buffer.concat([this.carry, chunk]);
    }
    for (;;) {
      if (this.state === 'body') {
        const at = data.indexOf(this.delimiter);
        if (at === -1) {
          // Keep only what could be the start of a delimiter, copied so the chunk can be freed.
          this.carry = Buffer.from(data.subarray(Math.max(0, data.length - this.delimiter.length + 1)));
          return;
        }
        data = data.subarray(at + this.delimiter.length);
        this.state = 'headers';
      }
      if (data.length >= 2 && data[0] === 0x2d && data[1] === 0x2d) {
        this.state = 'stopped'; // the closing delimiter: no part follows
        return;
      }
      const end = data.indexOf(HEADER_END);
      if (end === -1) {
        if (data.length > MAX_HEADER_BYTES) this.state = 'stopped';
        this.carry = Buffer.from(data);
        return;
      }
      this.notePart(data.subarray(0, end).toString('utf8'));
      data = data.subarray(end + HEADER_END.length - 2); // keep the CRLF: it begins the next delimiter if the part is empty
      this.state = 'body';
    }
  }

  private notePart(block: string): void {
    let disposition: string | undefined;
    let hasContentType = false;
    for (const line of block.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-disposition') disposition = value;
      if (name === 'content-type' && value !== '') hasContentType = true;
    }
    if (disposition === undefined || dispositionParam(disposition, 'name') !== 'file') return;
    const filename = dispositionParam(disposition, 'filename\\*') ?? dispositionParam(disposition, 'filename');
    if (filename) this.declared.push(hasContentType);
  }

  /**
   * Whether the next `file` part declared a Content-Type; undefined when the watcher cannot
   * tell (then busboy's report stands). Called once per file part, in order.
   */
  nextFileDeclaredType(): boolean | undefined {
    return this.declared.shift();
  }
}

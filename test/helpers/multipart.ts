/** One part of a hand-made multipart/form-data body. */
export interface FormPart {
  name: string;
  /** Written into the Content-Disposition as is (UTF-8), so tests control every byte. */
  filename?: string;
  /** The RFC 5987 form, `filename*=` (e.g. utf-8''na%C3%AFve.pdf), written as is. */
  filenameStar?: string;
  /** Omitted → no Content-Type header in the part. */
  contentType?: string;
  data: string | Uint8Array;
}

export const TEST_BOUNDARY = 'clinic-test-boundary-7d3f';

/** The first bytes of a part, up to where its data begins. */
export function partHead(part: Omit<FormPart, 'data'>, boundary = TEST_BOUNDARY): Buffer {
  const disposition =
    `form-data; name="${part.name}"` +
    (part.filename === undefined ? '' : `; filename="${part.filename}"`) +
    (part.filenameStar === undefined ? '' : `; filename*=${part.filenameStar}`);
  const headers = [`Content-Disposition: ${disposition}`, ...(part.contentType === undefined ? [] : [`Content-Type: ${part.contentType}`])];
  return Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`, 'utf8');
}

/** The closing delimiter after the last part's data. */
export function formEnd(boundary = TEST_BOUNDARY): Buffer {
  return Buffer.from(`\r\n--${boundary}--\r\n`);
}

/**
 * A multipart/form-data body with the parts in the given order, built byte by byte (fetch's
 * FormData would escape or normalise the very names and orders tests need to control).
 */
export function multipartBody(parts: readonly FormPart[], boundary = TEST_BOUNDARY): { body: Buffer; contentType: string } {
  const pieces: Buffer[] = [];
  parts.forEach((part, index) => {
    if (index > 0) pieces.push(Buffer.from('\r\n'));
    pieces.push(partHead(part, boundary), Buffer.from(part.data));
  });
  pieces.push(parts.length === 0 ? Buffer.from(`--${boundary}--\r\n`) : formEnd(boundary));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

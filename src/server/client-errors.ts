import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { errors } from '../domain/errors.js';

/** Node's limit on all of a request's header lines together (--max-http-header-size, default 16 KiB). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The raw HTTP/1.1 answer to a request node:http refused before Koa saw it. */
function rawAnswer(status: number, reason: string, body?: object): string {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = [
    `HTTP/1.1 ${status} ${reason}`,
    'Connection: close',
    `X-Request-Id: ${randomUUID()}`,
    ...(body === undefined ? [] : ['Content-Type: application/json; charset=utf-8']),
    `Content-Length: ${Buffer.byteLength(text)}`,
  ];
  return `${headers.join('\r\n')}\r\n\r\n${text}`;
}

const HEADERS_TOO_LARGE = (() => {
  const error = errors.headersTooLarge(MAX_HEADER_BYTES);
  return rawAnswer(error.status, 'Request Header Fields Too Large', { detail: { code: error.code, message: error.message } });
})();

/** What node:http itself answers to the other parse errors (lib/_http_server.js). */
const NODE_ANSWERS: Readonly<Record<string, string>> = {
  HPE_CHUNK_EXTENSIONS_OVERFLOW: rawAnswer(413, 'Payload Too Large'),
  ERR_HTTP_REQUEST_TIMEOUT: rawAnswer(408, 'Request Timeout'),
};

/**
 * Makes node:http refuse header trouble out loud. By default it keeps only the first 2,000
 * header lines of a request and silently drops the rest, so an `Idempotency-Key` sent after
 * 1,000 junk headers vanished and a payment could be recorded twice. Here every header line is
 * kept (no count limit), the size limit of MAX_HEADER_BYTES bounds them all, and a request over
 * it gets 431 HEADERS_TOO_LARGE in the API's error shape. Other parse errors are answered as
 * node:http would.
 */
export function refuseHeaderOverflow(server: Server): void {
  server.maxHeadersCount = 0;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable && socket.bytesWritten === 0) {
      const code = error.code ?? '';
      socket.write(code === 'HPE_HEADER_OVERFLOW' ? HEADERS_TOO_LARGE : (NODE_ANSWERS[code] ?? rawAnswer(400, 'Bad Request')));
    }
    socket.destroy(error);
  });
}

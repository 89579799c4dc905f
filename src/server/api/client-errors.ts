import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errors, type AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** Node's limit on all of a request's header lines together (--max-http-header-size, default 16 KiB). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** How a refusal that node:http makes before Koa sees the request is answered: status line and, where the API has one, its coded error. */
interface RawRefusal {
  status: number;
  reason: string;
  error?: AppError;
}

/** What node:http refuses, by its error code (lib/_http_server.js); any other parse error is a 400. */
function refusalFor(code: string, requestTimeoutMs: number): RawRefusal {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', error: errors.headersTooLarge(MAX_HEADER_BYTES) };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', error: errors.requestTimeout(requestTimeoutMs / 1000) };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large' };
    default:
      return { status: 400, reason: 'Bad Request' };
  }
}

/** The raw HTTP/1.1 answer to a request node:http refused, with a request id of its own. */
function rawAnswer({ status, reason, error }: RawRefusal, requestId: string): string {
  const text = error === undefined ? '' : JSON.stringify({ detail: { code: error.code, message: error.message } });
  const headers = [
    `HTTP/1.1 ${status} ${reason}`,
    'Connection: close',
    `X-Request-Id: ${requestId}`,
    ...(error === undefined ? [] : ['Content-Type: application/json; charset=utf-8']),
    `Content-Length: ${Buffer.byteLength(text)}`,
  ];
  return `${headers.join('\r\n')}\r\n\r\n${text}`;
}

/** The response Koa is writing on `socket`, if any (node:http's own test before it answers a client error). */
const responseOn = (socket: Socket) => (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;

/**
 * Connections whose current request was answered before its body had arrived (a 401 sent before
 * the body is read): node:http goes on reading the body to keep the connection, and a timeout
 * then must not send a second answer to the one request.
 */
function trackEarlyAnswers(server: Server): WeakSet<Socket> {
  const answeredEarly = new WeakSet<Socket>();
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    // Taken now: node:http drops request.socket once the connection is gone.
    const socket = request.socket;
    answeredEarly.delete(socket);
    response.once('finish', () => {
      if (!request.complete) answeredEarly.add(socket);
    });
  };
  server.on('request', onRequest);
  server.on('checkContinue', onRequest);
  return answeredEarly;
}

/**
 * Makes node:http refuse what it refuses out loud, each refusal with a fresh request id that is
 * also logged, so IT can match a client's complaint to the log:
 * - headers: by default node:http keeps only the first 2,000 header lines of a request and
 *   silently drops the rest, so an `Idempotency-Key` sent after 1,000 junk headers vanished and a
 *   payment could be recorded twice. Here every header line is kept (no count limit), the size
 *   limit of MAX_HEADER_BYTES bounds them all, and a request over it gets 431 HEADERS_TOO_LARGE;
 * - time: a request not in full within the server's request timeout gets 408 REQUEST_TIMEOUT,
 *   also while Koa is still reading its body (the reader then fails as a client that went away),
 *   unless it was answered already (a 401 before its body): then its connection is only closed;
 * - other parse errors are answered as node:http would.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.maxHeadersCount = 0;
  const answeredEarly = trackEarlyAnswers(server);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const code = error.code ?? '';
    if (code === 'ECONNRESET') {
      // The client went away; there is no one to answer.
      socket.destroy(error);
      return;
    }
    const refusal = refusalFor(code, server.requestTimeout);
    const requestId = randomUUID();
    const answered = socket.writable && responseOn(socket)?.headersSent !== true && !answeredEarly.has(socket);
    if (answered) socket.write(rawAnswer(refusal, requestId));
    logger.info({ event: 'request_refused', request_id: requestId, status: refusal.status, reason: code, answered });
    socket.destroy(error);
  });
}

import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A client that sends `Expect: 100-continue` (curl does for bodies over 1 MiB) waits for
 * `100 Continue` before sending the body. node:http, left to itself, sends it at once, before
 * the program could refuse the request, so an over-limit upload, a wrong key or an unknown route
 * costs the client the whole body before its 413, 401 or 404. Here `100 Continue` goes out only
 * when something starts reading the body, that is after routing, authentication and the size
 * check have let the request through. A request answered without reading its body gets the
 * final answer instead (RFC 9110 §10.1.1), and node:http then closes the connection rather than
 * take a body that may still come for the next request.
 */
export function continueWhenBodyIsRead(request: IncomingMessage, response: ServerResponse): void {
  const sendContinue = () => {
    request.off('newListener', onListener);
    request.off('resume', sendContinue);
    // Once the final answer has begun, a 100 would be out of place (a refused body is drained unread).
    if (!response.headersSent && !response.writableEnded) response.writeContinue();
  };
  const onListener = (event: string | symbol) => {
    if (event === 'data' || event === 'readable') sendContinue();
  };
  // Readers either listen for 'data' or 'readable', or resume the stream (pipe, for await).
  request.on('newListener', onListener);
  request.on('resume', sendContinue);
}

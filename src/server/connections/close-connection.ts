import type { Socket } from 'node:net';
import type { ClinicContext } from '../api/state.js';

/** How long, and for how many bytes, a refused client's further sending is read and dropped. */
const LINGER_MS = 2000;
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Answers this request with `Connection: close` because its body is refused unread (413): the
 * unread rest must never be taken for a next request. Closing at once would make the kernel
 * answer the bytes the client is still sending with a reset, and a client that gets the reset
 * before it reads the response never sees the 413 (in a loop of refused uploads, about one in
 * ten). So the close lingers, as RFC 9112 §9.6 advises: after the response the server sends
 * FIN, then reads and drops what still arrives until the client stops, and closes LINGER_MS
 * after the response at the latest. Past LINGER_BYTES it stops reading instead of closing: the
 * client's sending then waits on TCP's window, and it has the rest of LINGER_MS to read its
 * answer (closing at LINGER_BYTES lost one 413 in a hundred to a client busy elsewhere, which
 * on loopback had sent 16 MiB within milliseconds).
 *
 * The middleware that refuses the body calls this before it throws, not the error handler: by
 * then a reader that threw from a `for await` loop has destroyed the request, and the answer was
 * lost (tried: the chunked 413 test then received a bare 500).
 */
export function closeConnectionAfterResponse(ctx: ClinicContext): void {
  ctx.set('Connection', 'close');
  const socket = ctx.req.socket;
  const request = ctx.req;
  // node:http ends a `Connection: close` response with socket.destroySoon(), which destroys the
  // socket as soon as the response is written; this replaces it for this socket only.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    let received = 0;
    const close = () => this.destroy();
    const deadline = setTimeout(close, LINGER_MS);
    this.once('close', () => clearTimeout(deadline));
    this.once('end', close);
    this.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > LINGER_BYTES) {
        request.pause();
        this.pause();
      }
    });
    // The rest of the body still flows through the request stream: let it, to nowhere.
    request.resume();
    this.resume();
  };
}

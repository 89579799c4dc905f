import type { Socket } from 'node:net';
import type { Context } from 'koa';

/** How long a refused request's connection stays open after the answer, discarding what the client still sends. */
const LINGER_MS = 2000;

/**
 * Answers on this request's connection and then closes it without losing the answer. Used when
 * a body is refused before it was read to its end (413): the unread rest must not be taken for
 * a next request, so the connection has to close. Node closes a `Connection: close` socket as
 * soon as the answer is written, and a client still sending its body then receives a TCP reset,
 * which on Linux discards the answer the client has not read yet: it sees ECONNRESET instead of
 * the 413. So, as HTTP servers' "lingering close" does, the socket is half-closed after the
 * answer and what still arrives is read and discarded for up to LINGER_MS.
 */
export function closeAfterAnswer(ctx: Context): void {
  ctx.set('Connection', 'close');
  const socket = ctx.req.socket as Socket & { destroySoon?: () => void };
  // node:http ends a `Connection: close` response's socket through destroySoon().
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    ctx.req.resume();
    this.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../../logger.js';
import { isOwnAddress, peerAddress } from './peer-address.js';

/**
 * Plain HTTP beside TLS on the one port `serve` listens on (docs/design-choices.md, "TLS").
 * A TLS connection begins with a record of type handshake, byte 0x16 (RFC 8446
 * §5.1); an HTTP/1.1 request begins with its method, a capital letter. So each connection's first
 * byte says which it is, and the socket is handed on with that byte put back, to the HTTPS server
 * or to a plain HTTP server that never listens itself (both run the same app, limits and
 * handlers). Plain HTTP from this PC's own 127.0.0.1 and ::1 (peer-address.ts: the rest of
 * 127.0.0.0/8 counts as another machine, as for the throttle) is served as before `tls init`: it
 * never leaves the PC, and local integrations keep their `http://127.0.0.1:8080`. From any other
 * address it gets a short plain-text 400 naming the https:// address, and the connection closes:
 * what it sent has crossed the network in clear text, and the server reads none of it.
 */

/** The first byte of a TLS connection: a handshake record's content type. */
const TLS_HANDSHAKE_RECORD = 0x16;

/** How long, and for how many bytes, a refused plain request's further sending is read and dropped before the close (close-connection.ts says why). */
const LINGER_MS = 2000;
const LINGER_BYTES = 1024 * 1024;

/** The https:// address a client reached this server at: the local address it connected to. */
function httpsAddressOf(socket: Socket): string {
  const local = peerAddress({ remoteAddress: socket.localAddress });
  return `https://${local.includes(':') ? `[${local}]` : local}:${socket.localPort ?? ''}/`;
}

/** The raw answer to plain HTTP from another computer: a 400 whose text says where to go. */
function refusalText(socket: Socket): string {
  const body =
    `This server answers other computers over HTTPS only: use ${httpsAddressOf(socket)} (docs/install.md, "Serve the clinic's network over HTTPS").\n` +
    'This plain-HTTP request was not read; what it sent crossed the network unencrypted.\n';
  const headers = [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: text/plain; charset=utf-8',
    'Cache-Control: no-store',
    'Connection: close',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** Sends the refusal, then reads and drops what the client still sends until it stops (or LINGER_*), and closes. */
function refusePlain(socket: Socket, logger: Logger): void {
  logger.info({
    event: 'plain_http_refused',
    client: peerAddress(socket),
    status: 400,
    note: 'plain HTTP from another computer on the TLS port',
  });
  let received = 0;
  const close = () => socket.destroy();
  const deadline = setTimeout(close, LINGER_MS);
  socket.once('close', () => clearTimeout(deadline));
  socket.once('end', close);
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > LINGER_BYTES) close();
  });
  socket.end(refusalText(socket));
  socket.resume();
}

/** The dispatch of a TLS server's connections by their first byte, and what is waiting for one. */
export interface FirstByteDispatch {
  /** Closes the connections still waiting for their first byte (the server is stopping). */
  closeWaiting(): void;
}

/**
 * Makes `tlsServer` look at each connection's first byte before its TLS begins: a handshake goes
 * on to TLS as before; plain HTTP from this PC is handed to `plainServer`; plain HTTP from
 * elsewhere is refused (refusePlain). A connection that sends nothing within `firstByteMs` is
 * closed, as a TLS handshake that never began was before. Installed before the connection guard
 * wraps the server's `emit`, so that every connection is admitted (and counted) while it waits.
 */
export function dispatchByFirstByte(tlsServer: Server, plainServer: Server, firstByteMs: number, logger: Logger): FirstByteDispatch {
  const waiting = new Set<Socket>();
  const emit = tlsServer.emit.bind(tlsServer) as (event: string | symbol, ...args: unknown[]) => boolean;
  const handOver = (socket: Socket, first: Buffer) => {
    // Put back: both servers read the connection from its first byte (node's TLS socket and
    // node:http take what the socket has buffered before reading its handle).
    socket.unshift(first);
    if (first[0] === TLS_HANDSHAKE_RECORD) emit('connection', socket);
    else if (isOwnAddress(peerAddress(socket))) plainServer.emit('connection', socket);
    else refusePlain(socket, logger);
  };
  const wait = (socket: Socket) => {
    waiting.add(socket);
    const done = () => {
      waiting.delete(socket);
      clearTimeout(timer);
      socket.off('readable', onReadable);
      socket.off('error', onError);
      socket.off('close', done);
    };
    const onError = () => done();
    const onReadable = () => {
      const first = socket.read() as Buffer | null;
      if (first === null || first.length === 0) return;
      done();
      handOver(socket, first);
    };
    const timer = setTimeout(() => {
      done();
      socket.destroy();
    }, firstByteMs);
    socket.on('readable', onReadable);
    // Until it is handed on, no one else listens: an error of these moments (a reset) only ends it.
    socket.on('error', onError);
    socket.on('close', done);
  };
  tlsServer.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event !== 'connection') return emit(event, ...args);
    wait(args[0] as Socket);
    return true;
  }) as Server['emit'];
  return {
    closeWaiting() {
      for (const socket of waiting) socket.destroy();
    },
  };
}

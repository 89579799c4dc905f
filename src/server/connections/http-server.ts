import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Db } from '../../db/open-database.js';
import { createApp } from '../api/app.js';
import { OPERATIONS } from '../api/api-operations.js';
import { ChangeWatch } from '../writes/change-watch.js';
import type { CommitGroups } from '../writes/commit-groups.js';
import { CONNECTION_LIMITS, HEADERS_TIMEOUT_MS, LISTEN_BACKLOG, REQUEST_TIMEOUT_MS, type ServerConfig } from '../config.js';
import { answerClientErrors } from '../api/client-errors.js';
import { ConnectionGuard } from './connection-limits.js';
import { continueWhenBodyIsRead } from './expect-continue.js';
import { dispatchByFirstByte } from './plain-beside-tls.js';

/** The certificate (a chain may follow it) and private key to serve HTTPS with, PEM. */
export interface HttpsCredentials {
  certificatePem: Buffer;
  keyPem: Buffer;
}

/**
 * The oldest TLS served: 1.2 (RFC 8996 retired 1.0 and 1.1; every client of the last decade
 * speaks 1.2 or 1.3). Set here rather than left to the runtime's default, which is the same today.
 */
const MIN_TLS_VERSION = 'TLSv1.2';

/** A listening server and the address it actually got (port 0 picks a free one). */
export interface RunningHttpServer {
  server: Server;
  host: string;
  port: number;
  /** Tells who waits for the change feed (held requests, the webhook deliveries) that an event was committed. */
  changes: ChangeWatch;
  /**
   * Stops accepting (a request held for the change feed is answered at once with what there is),
   * lets requests in flight finish, then resolves. After `graceMs` the
   * connections still open are cut, so a slow or stuck client cannot hold up a shutdown.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Serves the app on `host:port`, over HTTPS when given `tls` (the same app, limits and handlers
 * either way), and then plain HTTP on the same port to this PC's own programs only
 * (plain-beside-tls.ts); its requests run their database work through `commits`.
 */
export async function startHttpServer(
  db: Db,
  commits: CommitGroups,
  config: ServerConfig,
  host: string,
  port: number,
  tls?: HttpsCredentials,
): Promise<RunningHttpServer> {
  const changes = new ChangeWatch(db);
  commits.onCommit(() => changes.check());
  const handle = createApp(db, commits, { ...config, listenHost: host }, OPERATIONS, changes).callback();
  const requestTimeout = config.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const limits = { ...CONNECTION_LIMITS, ...config.connectionLimits };
  const options: ServerOptions = {
    requestTimeout,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
    keepAliveTimeout: limits.keepAliveMs,
    // node:http looks for requests past their time only this often (default 30 s, which would
    // let a 30 s timeout run to 60): every second keeps a 408 within a second of its deadline.
    connectionsCheckingInterval: Math.min(1000, requestTimeout),
  };
  // Koa's handler settles every request itself (errors included); node:http wants no promise back.
  const onRequest: RequestListener = (request, response) => void handle(request, response);
  // An https.Server is an http.Server over TLS sockets: the same requests, timeouts and events.
  const server: Server =
    tls === undefined
      ? createServer(options, onRequest)
      : createHttpsServer(
          { ...options, cert: tls.certificatePem, key: tls.keyPem, minVersion: MIN_TLS_VERSION, handshakeTimeout: limits.tlsHandshakeMs },
          onRequest,
        );
  // Under TLS, this PC's own plain HTTP is still answered on the same port (plain-beside-tls.ts):
  // by a second server that never listens, given those connections by their first byte.
  const plain = tls === undefined ? undefined : createServer(options, onRequest);
  const dispatch = plain === undefined ? undefined : dispatchByFirstByte(server, plain, limits.tlsHandshakeMs, config.logger);
  // The guard admits connections instead of node:http's maxConnections, which is one count for
  // all clients: the cheapest way to stop the server was to fill it. It admits them on the
  // listening server, before their first byte is awaited, and counts the requests of both.
  const guard = new ConnectionGuard(limits, config.logger);
  guard.attach(server);
  for (const served of plain === undefined ? [server] : [server, plain]) {
    if (served !== server) guard.watchRequests(served);
    answerClientErrors(served, config.logger);
    served.on('checkContinue', (request, response) => {
      continueWhenBodyIsRead(request, response);
      void handle(request, response);
    });
  }
  server.once('close', () => guard.close());
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      guard.close();
      reject(error);
    };
    server.once('error', fail);
    server.listen(port, host, LISTEN_BACKLOG, () => {
      server.off('error', fail);
      // node:http starts a server's list of connections, and the sweep that answers 408 past
      // headersTimeout and requestTimeout, on its 'listening': the plain server never listens
      // itself, and without this a loopback client could hold a half-sent request for ever.
      plain?.emit('listening');
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    host: address.address,
    port: address.port,
    changes,
    close: (graceMs = Infinity) =>
      new Promise<void>((resolve) => {
        changes.close();
        const deadline = Number.isFinite(graceMs)
          ? setTimeout(() => {
              server.closeAllConnections();
              plain?.closeAllConnections();
            }, graceMs)
          : undefined;
        // The listening server's close waits for every connection it accepted, the plain ones
        // handed on included (node counts them where they were accepted).
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        // Stops the plain server's sweep; node calls back with ERR_SERVER_NOT_RUNNING, as it never listened.
        plain?.close(() => {});
        // Idle keep-alive sockets, and connections yet to send a byte, would otherwise hold close() open until they time out.
        server.closeIdleConnections();
        plain?.closeIdleConnections();
        dispatch?.closeWaiting();
      }),
  };
}

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../../logger.js';
import { isOwnAddress, peerAddress } from './peer-address.js';

/** The numbers of the connection rule: config.ts has the program's (CONNECTION_LIMITS), docs/design-choices.md why. */
export interface ConnectionLimits {
  /** Connections open at once, whoever holds them. */
  maxConnections: number;
  /** Connections one client address other than the PC's own may hold at once. */
  perAddress: number;
  /** Of maxConnections, the slots only the PC's own 127.0.0.1 and ::1 may take. */
  ownReserve: number;
  /** How long a new connection may take to send its first request (a TLS handshake included) while the server is at ease. */
  firstRequestMs: number;
  /** How long a connection may wait for its next request after an answer (keep-alive) while the server is at ease. */
  keepAliveMs: number;
  /** How long a TLS handshake may take. */
  tlsHandshakeMs: number;
  /** From this share of maxConnections open, both waits shrink, to MIN_WAIT_SHARE of them at the cap. */
  pressureFrom: number;
  /**
   * Whether a connection over the cap, or over what other addresses may share, closes the
   * longest-waiting connection it competes with (one with no request in flight) to take its
   * place, and is refused only when none waits.
   */
  closeWaitingAtCap: boolean;
  /** What the limits did is logged at most once per this long. */
  logIntervalMs: number;
}

/** The least share of their waits connections get, at the cap: a LAN client's request arrives within milliseconds of its connection. */
const MIN_WAIT_SHARE = 0.05;
/** How often the waits are enforced under pressure (at ease node:http's own timeouts do it). */
const SWEEP_MS = 250;
/** The log line names at most this many addresses, the busiest; the rest are counted. */
const LOGGED_ADDRESSES = 5;
/** An interval remembers the counts of at most this many addresses (address rotation cannot grow it). */
const COUNTED_ADDRESSES = 100;

/** One open connection as the guard sees it. */
interface Connection {
  /** The TCP socket (under TLS, the one beneath the TLS socket). */
  readonly socket: Socket;
  readonly address: string;
  readonly own: boolean;
  /** Requests read whose answers are not yet sent in full. */
  inFlight: number;
  /** Whether it has had an answer: its wait is then keep-alive's, else its first request's. */
  answered: boolean;
  /** When (ms, the guard's clock) it last began to wait with no request in flight. */
  waitingSince: number;
}

/** Why a connection was refused or closed, as the log line counts it. */
type Limited = 'refused_over_address_limit' | 'refused_at_cap' | 'closed_waiting';

/** What the limits did in one log interval. */
interface Interval {
  readonly counts: Record<Limited, number>;
  /** Refusals and closes by client address, of at most COUNTED_ADDRESSES addresses. */
  readonly byAddress: Map<string, number>;
  readonly timer: NodeJS.Timeout;
}

/** Requests and the answers whose end frees their connection. */
type RequestEvent = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The server's connections, limited so that no one client can take the last of them
 * (docs/design-choices.md, "Connections and time limits"): one address other
 * than the PC's own holds at most `perAddress`, its next connections refused; other addresses
 * together leave `ownReserve` slots to the PC's own; a connection over those shares or the cap
 * closes the longest-waiting one it competes with (no request in flight: a handshake, headers
 * not yet finished, keep-alive) rather than being refused; and from `pressureFrom` of the cap on,
 * the time a connection may wait for a request shrinks with the room left. A refused connection
 * is closed unanswered, as node:http closes one over its maxConnections. What the limits did is
 * logged once per interval.
 */
export class ConnectionGuard {
  /** Every connection admitted and not yet closed, oldest first. */
  private readonly open = new Set<Connection>();
  private readonly byAddress = new Map<string, Set<Connection>>();
  /** A connection by its TCP socket, and under TLS by its TLS socket too. */
  private readonly bySocket = new WeakMap<Socket, Connection>();
  /** Connections of addresses other than the PC's own. */
  private others = 0;
  private interval: Interval | undefined;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly logger: Logger,
    /** A monotonic clock in ms; tests may give another. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  /** Guards `server`'s connections from now on. */
  attach(server: Server): void {
    // Admitted before any listener of 'connection' hears of it, node:http's own included: a
    // refused socket is closed without the parser, timers and (under TLS) the TLS socket node
    // would make for it. A flood of connections from one address is mostly refusals.
    const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
    const admit = (socket: Socket) => this.admit(socket);
    server.emit = ((event: string | symbol, ...args: unknown[]) =>
      event === 'connection' && !admit(args[0] as Socket) ? false : emit(event, ...args)) as Server['emit'];
    // Under TLS, requests arrive on the TLS socket over the TCP one that was admitted, which
    // node keeps as its `_parent` (not documented: the TLS tests of connection-limits.test.ts
    // fail if that goes, since busy TLS connections would then be closed as waiting).
    server.on('secureConnection', (tlsSocket: Socket) => {
      const connection = this.bySocket.get((tlsSocket as Socket & { _parent?: Socket })._parent ?? tlsSocket);
      if (connection !== undefined) this.bySocket.set(tlsSocket, connection);
    });
    this.watchRequests(server);
  }

  /**
   * Counts the requests of `server` against the connections they arrive on: those of the server
   * attached, and of a server it hands connections to (http-server.ts gives the PC's own plain
   * HTTP beside TLS to a second one, which admits nothing itself).
   */
  watchRequests(server: Server): void {
    const track: RequestEvent = (request, response) => this.track(request, response);
    server.on('request', track);
    // A request with `Expect: 100-continue` comes as this event instead (http-server.ts answers it).
    server.on('checkContinue', track);
  }

  /** Stops the sweeps and logs what the current interval holds. */
  close(): void {
    clearInterval(this.sweeper);
    this.report();
  }

  /** Whether `socket` may be served; if not, it is closed (refused, counted for the log). */
  private admit(socket: Socket): boolean {
    const address = peerAddress(socket);
    const own = isOwnAddress(address);
    const mine = this.byAddress.get(address);
    const { maxConnections, perAddress, ownReserve } = this.limits;
    // Over its own limit an address is refused, not served by closing one of its others: a client
    // that opens connections in a loop then costs an accept and a close each, and its sockets
    // already held stay put instead of each new one being served and closed in turn (measured:
    // the kernel's queue of connections to accept overflowed six times as often that way).
    if (!own && (mine?.size ?? 0) >= perAddress) {
      this.refuse(socket, address, 'refused_over_address_limit');
      return false;
    }
    if (!own && this.others >= maxConnections - ownReserve && !this.makeRoom(this.open, (other) => !other.own)) {
      this.refuse(socket, address, 'refused_at_cap');
      return false;
    }
    if (this.open.size >= maxConnections && !this.makeRoom(this.open)) {
      this.refuse(socket, address, 'refused_at_cap');
      return false;
    }
    const connection: Connection = { socket, address, own, inFlight: 0, answered: false, waitingSince: this.now() };
    this.open.add(connection);
    if (mine === undefined) this.byAddress.set(address, new Set([connection]));
    else mine.add(connection);
    if (!own) this.others += 1;
    this.bySocket.set(socket, connection);
    socket.once('close', () => this.release(connection));
    return true;
  }

  /** Closes the longest-waiting of `candidates` that `eligible` allows, if the limits say to; whether one was closed. */
  private makeRoom(candidates: Iterable<Connection>, eligible: (connection: Connection) => boolean = () => true): boolean {
    if (!this.limits.closeWaitingAtCap) return false;
    let longest: Connection | undefined;
    for (const connection of candidates) {
      if (connection.inFlight === 0 && eligible(connection) && (longest === undefined || connection.waitingSince < longest.waitingSince))
        longest = connection;
    }
    if (longest === undefined) return false;
    this.closeWaiting(longest);
    return true;
  }

  /** Closes a waiting connection the limits need, counting it in the interval's log line. */
  private closeWaiting(connection: Connection): void {
    this.release(connection);
    connection.socket.destroy();
    this.note('closed_waiting', connection.address);
  }

  private refuse(socket: Socket, address: string, why: Limited): void {
    // No one else listens to a refused socket: an error of its last moments must go nowhere.
    socket.on('error', () => {});
    socket.destroy();
    this.note(why, address);
  }

  /** Forgets a connection (closed by its client, by a timeout or by the guard); a second call does nothing. */
  private release(connection: Connection): void {
    if (!this.open.delete(connection)) return;
    const mine = this.byAddress.get(connection.address);
    mine?.delete(connection);
    if (mine?.size === 0) this.byAddress.delete(connection.address);
    if (!connection.own) this.others -= 1;
  }

  /** Marks the request's connection busy until its answer is sent in full (or the request aborted). */
  private track(request: IncomingMessage, response: ServerResponse): void {
    const connection = this.bySocket.get(request.socket);
    if (connection === undefined) return;
    connection.inFlight += 1;
    response.once('close', () => {
      connection.inFlight -= 1;
      connection.answered = true;
      if (connection.inFlight === 0) connection.waitingSince = this.now();
    });
  }

  /**
   * Under pressure, closes every connection that has waited longer than its wait shrunk by the
   * room left: at `pressureFrom` of the cap the full wait, at the cap MIN_WAIT_SHARE of it.
   */
  private sweep(): void {
    const { maxConnections, pressureFrom, firstRequestMs, keepAliveMs } = this.limits;
    const load = this.open.size / maxConnections;
    if (load <= pressureFrom) return;
    const share = Math.max(MIN_WAIT_SHARE, (1 - load) / (1 - pressureFrom));
    const now = this.now();
    for (const connection of this.open) {
      if (connection.inFlight > 0) continue;
      const wait = (connection.answered ? keepAliveMs : firstRequestMs) * share;
      if (now - connection.waitingSince > wait) this.closeWaiting(connection);
    }
  }

  /** Counts what the limits did; the first of an interval starts it, and its end logs it all in one line. */
  private note(why: Limited, address: string): void {
    this.interval ??= {
      counts: { refused_over_address_limit: 0, refused_at_cap: 0, closed_waiting: 0 },
      byAddress: new Map(),
      timer: setTimeout(() => this.report(), this.limits.logIntervalMs).unref(),
    };
    const interval = this.interval;
    interval.counts[why] += 1;
    const counted = interval.byAddress.get(address);
    if (counted !== undefined || interval.byAddress.size < COUNTED_ADDRESSES) interval.byAddress.set(address, (counted ?? 0) + 1);
  }

  /** Logs the interval's one line, if anything happened in it. */
  private report(): void {
    const interval = this.interval;
    if (interval === undefined) return;
    clearTimeout(interval.timer);
    this.interval = undefined;
    const busiest = [...interval.byAddress].sort((a, b) => b[1] - a[1]).slice(0, LOGGED_ADDRESSES);
    const named = busiest.reduce((sum, [, count]) => sum + count, 0);
    const all = interval.counts.refused_over_address_limit + interval.counts.refused_at_cap + interval.counts.closed_waiting;
    this.logger.error({
      event: 'connections_limited',
      ...interval.counts,
      busiest_addresses: Object.fromEntries(busiest),
      other_addresses: all - named,
      open: this.open.size,
      open_not_own: this.others,
      limits: {
        max_connections: this.limits.maxConnections,
        per_address: this.limits.perAddress,
        own_reserve: this.limits.ownReserve,
      },
      interval_s: this.limits.logIntervalMs / 1000,
    });
  }
}

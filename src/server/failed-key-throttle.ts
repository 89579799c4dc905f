import { LRUCache } from 'lru-cache';

/** clinic-api-1.2.md, "Failed keys": this many answers 401 … */
export const FAILED_KEYS_ALLOWED = 30;
/** … within this long block a client address for this long after the last of them. */
export const FAILED_KEYS_WINDOW_MS = 60_000;
/**
 * The most client addresses whose 401s are remembered at once; the least recently seen is
 * forgotten first. A clinic's network has a few dozen; each costs about 400 bytes, so the
 * throttle holds at most about 4 MB whoever sends what (docs/decisions.md, "Network").
 */
export const MOST_ADDRESSES = 10_000;

/** One client address's recent 401s: a ring of the last FAILED_KEYS_ALLOWED times, and its block. */
interface FailureLog {
  /** The times of its last 401s (ms), oldest at `next` once the ring is full. */
  readonly times: Float64Array;
  /** Where the next 401's time goes. */
  next: number;
  /** How many of `times` hold a 401 (at most FAILED_KEYS_ALLOWED). */
  count: number;
  /** Until when (ms) every request from the address is refused; 0 when it is not blocked. */
  blockedUntil: number;
}

export interface FailedKeyThrottleOptions {
  /** The clock (ms since the epoch); tests give a fake one. */
  now?: () => number;
  /** At most this many addresses are remembered (MOST_ADDRESSES). */
  maxAddresses?: number;
}

/**
 * The rule of "Failed keys" (clinic-api-1.2.md, "Network"), without HTTP: once one address has
 * had FAILED_KEYS_ALLOWED answers 401 within FAILED_KEYS_WINDOW_MS (a sliding window: any such
 * span, not fixed minutes), it is blocked until FAILED_KEYS_WINDOW_MS after that last 401. Which
 * addresses are exempt is the caller's (the middleware exempts the PC's own loopback).
 */
export class FailedKeyThrottle {
  private readonly now: () => number;
  // Bounded whatever the number of addresses: lru-cache keeps at most `max` entries and drops
  // the least recently used one to make room (no timer per entry, unlike a TTL store).
  private readonly logs: LRUCache<string, FailureLog>;

  constructor(options: FailedKeyThrottleOptions = {}) {
    this.now = options.now ?? Date.now;
    this.logs = new LRUCache({ max: options.maxAddresses ?? MOST_ADDRESSES });
  }

  /** How long (ms) `address` stays blocked, or 0 when its requests are to be served. */
  blockedFor(address: string): number {
    // An address without a 401 is one lookup, and allocates nothing.
    const log = this.logs.get(address);
    if (log === undefined || log.blockedUntil === 0) return 0;
    const left = log.blockedUntil - this.now();
    if (left > 0) return left;
    log.blockedUntil = 0;
    return 0;
  }

  /** Records that a request from `address` was answered 401, and blocks it if that is one too many. */
  recordFailure(address: string): void {
    const now = this.now();
    let log = this.logs.get(address);
    if (log === undefined) {
      log = { times: new Float64Array(FAILED_KEYS_ALLOWED), next: 0, count: 0, blockedUntil: 0 };
      this.logs.set(address, log);
    }
    // A request in flight when the block began does not move its end: that is the 30th 401's.
    if (log.blockedUntil > now) return;
    log.times[log.next] = now;
    log.next = (log.next + 1) % FAILED_KEYS_ALLOWED;
    log.count = Math.min(log.count + 1, FAILED_KEYS_ALLOWED);
    // The ring full, its oldest time is the one after the newest: the first of the last 30 401s.
    const first = log.times[log.next] ?? now;
    if (log.count === FAILED_KEYS_ALLOWED && now - first < FAILED_KEYS_WINDOW_MS) {
      // Its 401s are all older than 60 s when the block ends, so it then starts afresh.
      log.blockedUntil = now + FAILED_KEYS_WINDOW_MS;
    }
  }

  /** How many addresses are remembered now (for the memory test). */
  get size(): number {
    return this.logs.size;
  }
}

import { LRUCache } from 'lru-cache';

/** clinic-api-1.2.md, "Failed keys": this many answers 401 … */
export const FAILED_KEYS_ALLOWED = 30;
/** … within this long block a client address for this long after the last of them. */
export const FAILED_KEYS_WINDOW_MS = 60_000;
/**
 * The most client addresses whose 401s are remembered at once; the least recently seen is
 * forgotten first. A clinic's network has a few dozen; each costs about 400 bytes, so the
 * throttle holds at most about 4 MB whoever sends what (docs/design-choices.md, "Failed keys").
 */
export const MOST_ADDRESSES = 10_000;

/**
 * At most this many addresses are blocked at once; a block pushed out early is the one that
 * ends soonest. Blocks cannot be pushed out by other addresses' 401s, as blocked addresses once
 * were from the LRU of counting logs: 10,000 other addresses, one 401 each, lifted a 60 s block
 * in 7.4 s. The clinic-wide budget lets at most CLINIC_FAILED_KEYS_ALLOWED / FAILED_KEYS_ALLOWED
 * (10) new blocks a minute, so this bound is never near; each costs about 100 bytes.
 */
export const MOST_BLOCKED_ADDRESSES = 10_000;

/**
 * The clinic-wide budget: once this many answers 401 to addresses other than the PC's own fall
 * within FAILED_KEYS_WINDOW_MS, only addresses that used a valid key lately are served until
 * FAILED_KEYS_WINDOW_MS after the last of them. Ten addresses' worth of the per-address rule: a
 * clinic's network that sees that many wrong keys in a minute is being guessed at from many
 * addresses (3,000 guesses in 3.8 s, rotating addresses, before the budget).
 */
export const CLINIC_FAILED_KEYS_ALLOWED = 300;

/** An address that used a valid key within this long is served while the clinic-wide budget is spent. */
export const KNOWN_ADDRESS_MS = 60 * 60 * 1000;

/** At most this many addresses that used a valid key are remembered (a clinic's network has a few dozen). */
export const MOST_KNOWN_ADDRESSES = 1_000;

/** The times of the last `size` failures, oldest at `next` once the ring is full. */
class FailureRing {
  private readonly times: Float64Array;
  private next = 0;
  private count = 0;

  constructor(private readonly size: number) {
    this.times = new Float64Array(size);
  }

  /** Adds a failure at `now`; whether the ring now holds `size` failures within `windowMs`. */
  add(now: number, windowMs: number): boolean {
    this.times[this.next] = now;
    this.next = (this.next + 1) % this.size;
    this.count = Math.min(this.count + 1, this.size);
    // The ring full, its oldest time is the one after the newest.
    return this.count === this.size && now - (this.times[this.next] ?? now) < windowMs;
  }
}

export interface FailedKeyThrottleOptions {
  /** The clock (ms since the epoch); tests give a fake one. */
  now?: () => number;
  /** At most this many addresses' 401s are remembered (MOST_ADDRESSES). */
  maxAddresses?: number;
  /** At most this many addresses are blocked at once (MOST_BLOCKED_ADDRESSES). */
  maxBlocked?: number;
  /** The clinic-wide budget of 401s within the window (CLINIC_FAILED_KEYS_ALLOWED); Infinity: none (the benchmark's before). */
  clinicAllowed?: number;
}

/**
 * The rule of "Failed keys" (clinic-api-1.2.md, "Network"), without HTTP: once one address has
 * had FAILED_KEYS_ALLOWED answers 401 within FAILED_KEYS_WINDOW_MS (a sliding window: any such
 * span, not fixed minutes), it is blocked until FAILED_KEYS_WINDOW_MS after that last 401. And
 * the clinic-wide budget (docs/design-choices.md, "Failed keys"): once
 * CLINIC_FAILED_KEYS_ALLOWED 401s of any addresses fall within the window, every address that
 * has not used a valid key within KNOWN_ADDRESS_MS is refused until the window has passed since
 * the last of them, so that rotating addresses buys no more guesses. Which addresses are exempt
 * is the caller's (the middleware exempts the PC's own loopback).
 */
export class FailedKeyThrottle {
  private readonly now: () => number;
  // Bounded whatever the number of addresses: lru-cache keeps at most `max` entries and drops
  // the least recently used one to make room (no timer per entry, unlike a TTL store).
  private readonly logs: LRUCache<string, FailureRing>;
  /**
   * Blocked addresses and when each block ends, apart from the logs so that no number of other
   * addresses can push a block out. Every block lasts the same, so insertion order is the order
   * in which they end: the first entry is the one to drop when full.
   */
  private readonly blocked = new Map<string, number>();
  private readonly maxBlocked: number;
  private readonly clinicFailures: FailureRing | undefined;
  /** Until when (ms) only known addresses are served; 0 while the budget holds. */
  private clinicBlockedUntil = 0;
  /** Addresses that used a valid key, with when they last did. */
  private readonly known = new LRUCache<string, number>({ max: MOST_KNOWN_ADDRESSES });

  constructor(options: FailedKeyThrottleOptions = {}) {
    this.now = options.now ?? Date.now;
    this.logs = new LRUCache({ max: options.maxAddresses ?? MOST_ADDRESSES });
    this.maxBlocked = options.maxBlocked ?? MOST_BLOCKED_ADDRESSES;
    const clinicAllowed = options.clinicAllowed ?? CLINIC_FAILED_KEYS_ALLOWED;
    this.clinicFailures = Number.isFinite(clinicAllowed) ? new FailureRing(clinicAllowed) : undefined;
  }

  /** How long (ms) `address` stays blocked by its own 401s, or 0. */
  blockedFor(address: string): number {
    // An address without a block is one lookup, and allocates nothing.
    const until = this.blocked.get(address);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return left;
    this.blocked.delete(address);
    return 0;
  }

  /** How long (ms) `address` is refused because the clinic-wide budget is spent, or 0 (also for an address that used a valid key lately). */
  clinicBlockedFor(address: string): number {
    if (this.clinicBlockedUntil === 0) return 0;
    const now = this.now();
    const left = this.clinicBlockedUntil - now;
    if (left <= 0) {
      this.clinicBlockedUntil = 0;
      return 0;
    }
    const lastValid = this.known.get(address);
    return lastValid !== undefined && now - lastValid < KNOWN_ADDRESS_MS ? 0 : left;
  }

  /** Records that a request from `address` was answered 401 (or presented a wrong key), blocking it, or everyone unknown, if that is one too many. */
  recordFailure(address: string): void {
    const now = this.now();
    // A request in flight when a block began does not move its end: that is the last 401's.
    if (this.clinicBlockedUntil <= now && this.clinicFailures?.add(now, FAILED_KEYS_WINDOW_MS) === true) {
      // Its 401s are all older than the window when it ends, so the budget then starts afresh.
      this.clinicBlockedUntil = now + FAILED_KEYS_WINDOW_MS;
    }
    if (this.blockedFor(address) > 0) return;
    let log = this.logs.get(address);
    if (log === undefined) {
      log = new FailureRing(FAILED_KEYS_ALLOWED);
      this.logs.set(address, log);
    }
    if (log.add(now, FAILED_KEYS_WINDOW_MS)) this.block(address, now + FAILED_KEYS_WINDOW_MS);
  }

  /** Records that a request from `address` carried a valid key: it is served while the clinic-wide budget is spent. */
  recordValidKey(address: string): void {
    this.known.set(address, this.now());
  }

  private block(address: string, until: number): void {
    // Its 401s are all older than the window when the block ends, so it then starts afresh.
    this.logs.delete(address);
    if (this.blocked.size >= this.maxBlocked) {
      // The first entries end first: the expired ones go, and if none has, the one nearest its end.
      const now = this.now();
      for (const [other, otherUntil] of this.blocked) {
        if (this.blocked.size < this.maxBlocked && otherUntil > now) break;
        this.blocked.delete(other);
      }
    }
    this.blocked.set(address, until);
  }

  /** How many addresses' 401s are remembered now (for the memory test). */
  get size(): number {
    return this.logs.size;
  }

  /** How many addresses are blocked now, expired blocks not yet looked at included. */
  get blockedCount(): number {
    return this.blocked.size;
  }
}

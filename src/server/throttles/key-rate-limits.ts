const MINUTE_MS = 60_000;

/** A key's requests in one clock minute. */
interface MinuteCount {
  /** Which minute: whole minutes since the epoch (UTC, so each begins at :00). */
  minute: number;
  count: number;
}

/**
 * The keys' own limits (`clinic api-key create --rate-limit N`, clinic-api-1.2.md, "Network"):
 * N requests per fixed clock minute, counted from :00 of each UTC minute. One counter per key
 * that has a limit and was used, reused minute after minute, so memory grows with the keys in
 * the database, never with the requests or the clients.
 */
export class KeyRateLimits {
  private readonly counts = new Map<string, MinuteCount>();

  /** `now`: the clock (ms since the epoch); tests give a fake one. */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Counts `amount` (one request, or the audit events of one read: audited-read-guard.ts) of the
   * key `keyId`, whose limit is `perMinute`. Returns 0 when they fit in this minute (more than a
   * whole minute's worth fits only a minute not yet used), else how long (ms) until the minute
   * ends; what is refused is not counted.
   */
  take(keyId: string, perMinute: number, amount = 1): number {
    const now = this.now();
    const minute = Math.floor(now / MINUTE_MS);
    let counted = this.counts.get(keyId);
    if (counted === undefined) {
      counted = { minute, count: 0 };
      this.counts.set(keyId, counted);
    } else if (counted.minute !== minute) {
      counted.minute = minute;
      counted.count = 0;
    }
    if (counted.count + amount > perMinute && counted.count > 0) return (minute + 1) * MINUTE_MS - now;
    counted.count += amount;
    return 0;
  }
}

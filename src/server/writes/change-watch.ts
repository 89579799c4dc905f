import { lastChangeSeq } from '../../db/change-events.js';
import type { Db } from '../../db/open-database.js';

/**
 * How often the feed's last seq is read while someone waits for a change: a commit made by
 * another process (a desk command beside the server) is seen within this. This process's own
 * commits are seen at once (`check` after each COMMIT).
 */
export const CHANGE_POLL_MS = 250;

/**
 * Requests held for the feed at once (GET /events?wait), in all and for one API key. Each holds a
 * connection, of the server's 256 (MAX_CONNECTIONS): a client that opens long polls in parallel
 * (a bug, or on purpose) must not take the connections the desk and other integrations need.
 * Beyond these, a request is answered at once with what there is, as when its wait ends.
 */
export const MAX_HELD_REQUESTS = 64;
export const MAX_HELD_REQUESTS_PER_KEY = 8;

/**
 * Tells the server's waiters (GET /events?wait, the webhook deliveries) that the change feed has
 * grown. The feed's last seq is one probe of its primary key, read after each of this process's
 * commits and, while anyone waits, every CHANGE_POLL_MS for other processes' commits: nobody
 * reads the feed itself in a loop, and nothing is read while nobody waits.
 */
export class ChangeWatch {
  #last = 0;
  readonly #waiters = new Set<() => void>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #held = new Map<string, number>();
  #heldInAll = 0;

  constructor(
    private readonly db: Db,
    private readonly pollMs = CHANGE_POLL_MS,
  ) {}

  /**
   * The feed's last committed seq as of now (read outside any transaction: never an uncommitted
   * one). Growth it finds wakes the waiters, as check's does: a reader (the webhook worker's pass,
   * every second) that saw another process's commit first would otherwise leave nothing for the
   * next check to find, and a held request would sleep to its end.
   */
  lastSeq(): number {
    if (this.#refresh()) this.#wakeAll();
    return this.#last;
  }

  /**
   * Wakes every waiter when the feed grew: after each of this process's commits and every
   * CHANGE_POLL_MS while anyone waits. With nobody waiting it reads nothing, so a commit of the
   * server costs no probe.
   */
  check(): void {
    if (this.#waiters.size > 0 && this.#refresh()) this.#wakeAll();
  }

  #wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  /**
   * Reads the last seq; whether it grew. Skipped while this connection is in a transaction (a
   * commit group is open), whose rows may not commit: its COMMIT checks again.
   */
  #refresh(): boolean {
    if (this.#closed || this.db.inTransaction || !this.db.open) return false;
    let last: number;
    try {
      last = lastChangeSeq(this.db);
    } catch {
      // A read that fails here (an I/O error) fails the requests too, which say so; waiters are
      // answered when their time is up, and the next check tries again.
      return false;
    }
    if (last <= this.#last) return false;
    this.#last = last;
    return true;
  }

  /**
   * Resolves once an event after `seq` has been committed, or `ms` has passed, or `signal` aborts,
   * or the watch is closed (the server stops: a held request is answered with what there is).
   */
  after(seq: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || this.#last > seq || signal?.aborted === true || ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timeout);
        signal?.removeEventListener('abort', done);
        this.#waiters.delete(wake);
        this.#stopPollingIfIdle();
        resolve();
      };
      const wake = () => {
        if (this.#closed || this.#last > seq) done();
      };
      const timeout = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.#waiters.add(wake);
      this.#timer ??= setInterval(() => this.check(), this.pollMs);
    });
  }

  /**
   * Counts a request held for `holder` (its API key), and gives what ends the count; undefined
   * when MAX_HELD_REQUESTS are held already, or MAX_HELD_REQUESTS_PER_KEY for this holder.
   */
  hold(holder: string): (() => void) | undefined {
    const mine = this.#held.get(holder) ?? 0;
    if (this.#heldInAll >= MAX_HELD_REQUESTS || mine >= MAX_HELD_REQUESTS_PER_KEY) return undefined;
    this.#held.set(holder, mine + 1);
    this.#heldInAll++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#heldInAll--;
      const left = (this.#held.get(holder) ?? 1) - 1;
      if (left === 0) this.#held.delete(holder);
      else this.#held.set(holder, left);
    };
  }

  /** Whether the server is stopping: nobody should start waiting. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Answers every waiter now and stops polling; for the server's stop. */
  close(): void {
    this.#closed = true;
    this.#wakeAll();
    this.#stopPollingIfIdle();
  }

  #stopPollingIfIdle(): void {
    if (this.#waiters.size > 0 || this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

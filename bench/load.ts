/**
 * One load run with autocannon's programmatic API, in this process. Latencies are taken from
 * every response's own time (autocannon's histogram keeps whole milliseconds, too coarse for
 * requests that take a fraction of one).
 */
import autocannon from 'autocannon';

/** What to send: autocannon's request, optionally changed before each send. */
export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Called before each request; returns the request to send (e.g. another path or key). */
  setup?: (request: autocannon.Request) => autocannon.Request;
}

/** The figures of one run. Latencies are of 2xx answers, in milliseconds. */
export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers that were not 2xx, by status. */
  failures: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  /** Every answer, 2xx or not. */
  answers: number;
  /** The 2xx answers. */
  successes: number;
  /**
   * Audit events the server appended during the measured run, per 2xx answer (set by the caller
   * that can read the server's database; requests still in flight when the run ends add a few).
   */
  auditEventsPerAnswer?: number;
  /** The same for the change feed's events (issue 30), read from `change_events`. */
  changeEventsPerAnswer?: number;
  /**
   * The server process's CPU time (user + system, every thread) per answer, in microseconds,
   * and the share of its one core it kept busy: where both are high the server, not the disk,
   * sets the pace (set by the caller that knows the server's pid).
   */
  serverCpu?: { microsPerAnswer: number; busy: number };
}

/** The value at quantile `q` of an ascending list. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Runs `connections` clients against `origin` for `seconds`. */
export function runLoad(origin: string, load: LoadRequest, options: { connections: number; seconds: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin,
        connections: options.connections,
        duration: options.seconds,
        // A request slower than this is counted as an error rather than waited for.
        timeout: 30,
        requests: [
          {
            method: load.method,
            path: load.path,
            headers: load.headers,
            ...(load.body === undefined ? {} : { body: load.body }),
            ...(load.setup ? { setupRequest: load.setup } : {}),
          },
        ],
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        const successes = Float64Array.from(latencies).sort();
        resolve({
          // Only successful requests count: a fast 4xx is not work done.
          requestsPerSec: successes.length / result.duration,
          p50: quantile(successes, 0.5),
          p99: quantile(successes, 0.99),
          max: successes.length === 0 ? NaN : successes[successes.length - 1]!,
          failures,
          errors: result.errors + result.timeouts,
          successes: successes.length,
          answers: successes.length + Object.values(failures).reduce((sum, count) => sum + count, 0),
        });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else failures[statusCode] = (failures[statusCode] ?? 0) + 1;
    });
  });
}

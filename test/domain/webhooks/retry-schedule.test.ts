// When a failed webhook delivery is tried again, and when its endpoint is given up (clinic-api-1.2.md, "Change feed": "retried after about 5 s, 30 s, ...").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { afterFailure, GIVE_UP_AFTER_MS } from '../../../src/domain/webhooks/retry-schedule.js';

const [SECOND, MINUTE, HOUR, DAY] = [1000, 60_000, 3_600_000, 86_400_000];
const SINCE = new Date('2026-11-30T08:00:00.000Z');

/** How long after `now` the `failedAttempts`-th failure is tried again, or what disabled it. */
function waitAfter(failedAttempts: number, now: Date, status: number | undefined = 503): number | string {
  const next = afterFailure(failedAttempts, SINCE, now, status);
  return next.disable ? next.why : next.retryAt.getTime() - now.getTime();
}

describe('the retry schedule of a failing webhook endpoint', () => {
  it('tries again after 5 s, 30 s, 2 min, 10 min, 30 min and 1 h, then hourly', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 50].map((attempt) => waitAfter(attempt, new Date(SINCE.getTime() + MINUTE)));
    assert.deepEqual(waits, [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, HOUR, HOUR]);
  });

  it('counts the waits from the failed attempt, not from the first failure', () => {
    const now = new Date(SINCE.getTime() + 2 * DAY);
    const next = afterFailure(3, SINCE, now, 500);
    assert.deepEqual(next, { disable: false, retryAt: new Date(now.getTime() + 2 * MINUTE) });
  });

  it('retries a connection error or a timeout, which has no status, like any other failure', () => {
    assert.equal(waitAfter(1, SINCE, undefined), 5 * SECOND);
  });

  it('gives up after 3 days of failure: a moment before, it still tries', () => {
    assert.equal(GIVE_UP_AFTER_MS, 3 * DAY);
    assert.equal(waitAfter(70, new Date(SINCE.getTime() + 3 * DAY - 1)), HOUR);
    assert.equal(waitAfter(70, new Date(SINCE.getTime() + 3 * DAY)), 'it has failed for 3 days');
  });

  it('gives up at once on 410 Gone, even on the first failure', () => {
    assert.equal(waitAfter(1, SINCE, 410), 'the endpoint answered 410 Gone');
    // Another 4xx is a failure like any other.
    assert.equal(waitAfter(1, SINCE, 404), 5 * SECOND);
  });
});

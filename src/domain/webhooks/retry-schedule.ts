/**
 * When a failed delivery is tried again, and when an endpoint is given up (clinic-api-1.2.md,
 * "Change feed"): after about 5 s, 30 s, 2 min, 10 min, 30 min and 1 h, then hourly; after 3 days
 * of failure, or at once on 410 Gone, the endpoint is disabled.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The waits after the 1st, 2nd, … failed attempt of one run of failures; the last repeats. */
export const RETRY_DELAYS_MS = [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR] as const;

/** How long an endpoint may keep failing before it is disabled. */
export const GIVE_UP_AFTER_MS = 3 * 24 * HOUR;

/** What a failed attempt leads to. */
export type AfterFailure = { disable: false; retryAt: Date } | { disable: true; why: string };

/**
 * The next step after the `failedAttempts`-th failed attempt (1 for the first) of a run of
 * failures that began at `failingSince`, the attempt having been answered `status` (undefined: no
 * answer at all).
 */
export function afterFailure(failedAttempts: number, failingSince: Date, now: Date, status: number | undefined): AfterFailure {
  if (status === 410) return { disable: true, why: 'the endpoint answered 410 Gone' };
  if (now.getTime() - failingSince.getTime() >= GIVE_UP_AFTER_MS) return { disable: true, why: 'it has failed for 3 days' };
  const delay = RETRY_DELAYS_MS[Math.min(failedAttempts, RETRY_DELAYS_MS.length) - 1]!;
  return { disable: false, retryAt: new Date(now.getTime() + delay) };
}

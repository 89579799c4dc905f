import { randomUUID } from 'node:crypto';

/** Now as stored and returned: UTC ISO 8601 with milliseconds and 'Z'. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** A new lowercase UUID v4 (decisions.md §3). */
export function newId(): string {
  return randomUUID();
}

import { randomUuidV4 } from './os-random.js';

/** Now as stored and returned: UTC ISO 8601 with milliseconds and 'Z'. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** A new lowercase UUID v4 (decisions.md §3), from the operating system's random bytes (os-random.ts). */
export function newId(): string {
  return randomUuidV4();
}

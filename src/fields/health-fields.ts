import { field, type FieldSpec } from './field-spec.js';

/** GET /health's answer (clinic-api-1.2.md, "Network"): for monitoring, no patient data. */
export const HEALTH_FIELDS = [
  field.literal('status', { required: true, values: ['ok', 'unavailable'] }),
  field.string('version', { required: true, description: "The program's version" }),
  field.literal('database', {
    required: true,
    values: ['ok', 'busy', 'full', 'failed'],
    description:
      '`ok`, or why not: `busy` (another process holds the write lock past the wait), `full` (less than 64 MiB free on the ' +
      "data directory's disk), `failed` (the database file cannot be read or written)",
  }),
  field.integer('disk_free_bytes', {
    required: true,
    nullable: true,
    minimum: 0,
    description:
      "Free bytes on the data directory's disk for the server's user: for a request from the PC itself (127.0.0.1, ::1) or with a " +
      'valid key holding `audit:read`; null for anyone else, and where the system does not say',
  }),
  field.datetime('started_at', { required: true, description: 'When this server started, UTC' }),
] as const satisfies readonly FieldSpec[];

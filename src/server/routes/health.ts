import type { Db } from '../../db/open-database.js';
import { authenticate } from '../../domain/api-keys.js';
import { AppError } from '../../errors.js';
import { checkHealth, type Health } from '../../domain/maintenance/health.js';
import { clientAddress } from '../api/api-caller.js';
import type { Operation } from '../api/operation.js';
import { isOwnAddress } from '../connections/peer-address.js';
import type { ClinicContext } from '../api/state.js';
import { ROLE_ROWS } from '../../domain/people/roles.js';
import { PROGRAM_VERSION } from '../../version.js';

/**
 * Whether this request may see the free bytes of the data directory's disk: from the PC's own
 * 127.0.0.1 or ::1 (IT on the PC), or with a valid key holding `audit:read`. To anyone else on
 * the network the byte count is a window on the clinic's activity (a 3 MB upload showed as
 * −3,002,368), so it is null. A wrong key is not refused (the endpoint takes none), but counts
 * as a failed key, so that this is no oracle for guessing keys beside the 401s.
 */
function mayReadDiskBytes(ctx: ClinicContext, db: Db): boolean {
  if (isOwnAddress(clientAddress(ctx))) return true;
  const authorization = ctx.get('Authorization');
  if (authorization === '') return false;
  try {
    const principal = authenticate(db, authorization);
    ctx.state.principal = principal;
    return principal.scopes.has('audit:read');
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    ctx.state.keyRefused = true;
    return false;
  }
}

/** GET /health's word on reads of patient data: `ok`, or `paused` below the audit trail's reserve (audited-read-guard.ts). */
export const AUDITED_READS_HEADER = 'Clinic-Audited-Reads';

/** GET /health (1.2.0): for IT's monitoring, without a key, showing no patient data and recording nothing. */
export const healthOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    roles: ROLE_ROWS.noLogin,
    summary: 'Whether the server can serve: its database read and writable, room on its disk',
    description:
      'No key needed; shows no patient data and records nothing in the audit trail. 503 with `status` `unavailable` when the ' +
      "database cannot be read or written, or the data directory's disk has less than 64 MiB free (`database` says which). " +
      '`disk_free_bytes` is given to a request from the PC itself (127.0.0.1, ::1) or with a valid key holding `audit:read`, ' +
      'and null to anyone else (a key without `audit:read` too); a wrong key is not refused here, but counts as a failed key.',
    tag: 'interface',
    result: {
      kind: 'model',
      status: 200,
      model: 'Health',
      description: 'The server can serve',
      example: {
        status: 'ok',
        version: PROGRAM_VERSION,
        database: 'ok',
        disk_free_bytes: 52_613_349_376,
        started_at: '2026-11-30T07:58:12.104Z',
      },
      unavailable: {
        description: 'The server cannot serve now; `database` says why',
        example: {
          status: 'unavailable',
          version: PROGRAM_VERSION,
          database: 'full',
          disk_free_bytes: 41_943_040,
          started_at: '2026-11-30T07:58:12.104Z',
        },
        when: (body) => (body as Health).status !== 'ok',
      },
      headers: {
        [AUDITED_READS_HEADER]: {
          description:
            "`paused` while the data directory's disk has less than its reserve free (256 MiB; an eighth of a disk under 2 GiB): reads that show patient data are refused (507 " +
            '`STORAGE_FAILED`, recording nothing) so that their audit events leave room for payments and changes, which go on; `ok` otherwise',
          schema: { type: 'string', enum: ['ok', 'paused'] },
        },
      },
    },
    handler:
      ({ db, commits, config, startedAt, auditedReads }) =>
      async (ctx) => {
        // A monitor must see the state of now, never a cached one.
        ctx.set('Cache-Control', 'no-store');
        // In a header, so that the body keeps 1.2.0's fields exactly (docs/design-choices.md).
        ctx.set(AUDITED_READS_HEADER, auditedReads.pausedNow() ? 'paused' : 'ok');
        const health = await checkHealth(db, commits, config.dataDir, startedAt);
        return mayReadDiskBytes(ctx, db) ? health : { ...health, disk_free_bytes: null };
      },
  },
];

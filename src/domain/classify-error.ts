import { SchemaTooNewError } from '../db/migrations.js';
import { storageFault } from '../db/storage-errors.js';
import { AppError, ValidationError, errors } from '../errors.js';

/**
 * The refusal a thrown value stands for, or undefined for an unexpected failure (a bug): those
 * are INTERNAL and must be logged, never shown. Storage faults are refusals the client can act
 * on (retry, free space), but 500 STORAGE_FAILED is still logged by the front end: see
 * `needsLogging`.
 */
export function classifyError(error: unknown): AppError | ValidationError | undefined {
  if (error instanceof AppError || error instanceof ValidationError) return error;
  if (error instanceof SchemaTooNewError) return errors.databaseTooNew(error.found, error.supported);
  switch (storageFault(error)) {
    case 'busy':
      return errors.databaseBusy();
    case 'full':
      return errors.storageFull();
    case 'failed':
      return errors.storageFailed();
    default:
      return undefined;
  }
}

/**
 * What a read that records audit events answers when its events could not be stored: 507
 * STORAGE_FAILED whether the disk is full or failing (clinic-api-1.2.md: a read whose events
 * cannot be stored shows nothing); any other error as it is.
 */
export function unrecordedReadError(error: unknown): unknown {
  const fault = storageFault(error);
  if (fault !== 'full' && fault !== 'failed') return error;
  return Object.assign(errors.readNotRecorded(fault === 'full'), { cause: error });
}

/** Whether the cause of `error` belongs in the log: a bug, or a disk that is full or fails (a busy lock is not news). */
export function needsLogging(error: unknown): boolean {
  const refusal = classifyError(error);
  return refusal === undefined || (refusal instanceof AppError && refusal.status >= 500 && refusal.status !== 503);
}

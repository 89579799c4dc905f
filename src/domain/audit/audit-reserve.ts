import { statfsSync } from 'node:fs';

/**
 * The room the audit trail may not take (issue 39, M1). A read of patient data records its events
 * before it answers, so reads alone can fill a disk, and then nothing can be written: not a
 * payment, not a patient. Below AUDITED_READ_RESERVE_BYTES free on the data directory's disk the
 * server refuses reads that record events (507 STORAGE_FAILED, recording nothing), while writes go
 * on down to the 64 MiB at which GET /health calls the server unavailable
 * (src/domain/maintenance/health.ts). `clinic check` warns from LOW_DISK_WARNING_BYTES on.
 */

/** Below this much free space the server pauses reads that record audit events. */
export const AUDITED_READ_RESERVE_BYTES = 256 * 1024 * 1024;

/** Below this much free space `clinic check` reports the disk as nearly full: four times the reserve. */
export const LOW_DISK_WARNING_BYTES = 4 * AUDITED_READ_RESERVE_BYTES;

/** The free bytes for this user on the disk holding `dir`, or undefined where the system would not say. */
export function freeBytesOn(dir: string): number | undefined {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return undefined;
  }
}

const mebibytes = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MiB`;

/** `clinic check`'s finding for a disk with less than LOW_DISK_WARNING_BYTES free, or none. */
export function lowDiskFindings(dataDir: string): string[] {
  const free = freeBytesOn(dataDir);
  if (free === undefined || free >= LOW_DISK_WARNING_BYTES) return [];
  const now =
    free < AUDITED_READ_RESERVE_BYTES
      ? 'so the server now refuses reads of patient data (their audit events would take the room kept for payments)'
      : `below ${mebibytes(AUDITED_READ_RESERVE_BYTES)} the server refuses reads of patient data, to keep room for payments`;
  return [
    `the data directory's disk has ${mebibytes(free)} free, less than ${mebibytes(LOW_DISK_WARNING_BYTES)}: ${now}; free space on it or move the data to a larger disk`,
  ];
}

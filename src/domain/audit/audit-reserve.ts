import { statfsSync } from 'node:fs';

/**
 * The room the audit trail may not take (issue 39, M1). A read of patient data records its events
 * before it answers, so reads alone can fill a disk, and then nothing can be written: not a
 * payment, not a patient. Below the reserve free on the data directory's disk the server refuses
 * reads that record events (507 STORAGE_FAILED, recording nothing), while writes go on down to
 * the 64 MiB at which GET /health calls the server unavailable (src/domain/maintenance/health.ts).
 * `clinic check` warns from four times the reserve on.
 */

/** The reserve on a disk of 2 GiB or more: what a clinic PC has. */
export const AUDITED_READ_RESERVE_BYTES = 256 * 1024 * 1024;

/** The data directory's disk: its free bytes for this user and its size. */
export interface DiskSpace {
  free: number;
  total: number;
}

/** The disk holding `dir`, or undefined where the system would not say. */
export function diskSpaceOf(dir: string): DiskSpace | undefined {
  try {
    const { bavail, blocks, bsize } = statfsSync(dir);
    return { free: bavail * bsize, total: blocks * bsize };
  } catch {
    return undefined;
  }
}

/**
 * The reserve of a disk: 256 MiB, or an eighth of a disk smaller than 2 GiB (a small partition,
 * a test's file system), so that such a disk is not paused whenever it is not empty.
 */
export function reserveOf(disk: DiskSpace): number {
  return Math.min(AUDITED_READ_RESERVE_BYTES, Math.floor(disk.total / 8));
}

/** Whether reads that record audit events are to pause on this disk: less than its reserve free. */
export function belowReserve(disk: DiskSpace | undefined): boolean {
  return disk !== undefined && disk.free < reserveOf(disk);
}

const mebibytes = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MiB`;

/** `clinic check`'s finding for a disk with less than four times its reserve free, or none. */
export function lowDiskFindings(dataDir: string): string[] {
  const disk = diskSpaceOf(dataDir);
  if (disk === undefined || disk.free >= 4 * reserveOf(disk)) return [];
  const now = belowReserve(disk)
    ? 'so the server now refuses reads of patient data (their audit events would take the room kept for payments)'
    : `below ${mebibytes(reserveOf(disk))} the server refuses reads of patient data, to keep room for payments`;
  return [
    `the data directory's disk has ${mebibytes(disk.free)} free, less than ${mebibytes(4 * reserveOf(disk))}: ${now}; free space on it or move the data to a larger disk`,
  ];
}

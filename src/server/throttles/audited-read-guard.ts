import { belowReserve, diskSpaceOf, reserveOf, type DiskSpace } from '../../domain/audit/audit-reserve.js';
import type { ApiPrincipal } from '../../domain/api-keys.js';
import { errors } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { KeyRateLimits } from './key-rate-limits.js';

/**
 * The audit events a key without a limit of its own (`api-key create --rate-limit`) may have its
 * reads record in one clock minute: a read of a page of 100 patients is 100. An integration
 * that polls a day of 150 patients every 5 s records 1,800; one that pages through 20,000
 * patients is paced to 7 minutes; a hostile key grows the trail by at most 180,000 events (about
 * 16 MB) an hour, where 1.2.0 let 4 connections record 11.5 million (7.9 GB). docs/design-choices.md.
 */
export const AUDITED_READS_PER_MINUTE = 3000;

/** How long a reading of the disk's free space is trusted while there is room: at most 4 statfs calls a second under any load. */
const FREE_SPACE_MAX_AGE_MS = 250;

/**
 * What the server asks before a read of patient data records its events (issue 39, M1): that
 * the data directory's disk is above the trail's reserve (audit-reserve.ts; else 507
 * STORAGE_FAILED: reads pause, writes go on), and that a key without a limit of its own stays within
 * AUDITED_READS_PER_MINUTE events this minute (else 429 TOO_MANY_REQUESTS with Retry-After, as
 * a key's own limit answers). A refused read records nothing. Each change between paused and
 * resumed reads is logged once.
 */
export class AuditedReadGuard {
  private readonly counts: KeyRateLimits;
  private reading: { disk: DiskSpace | undefined; readAt: number } | undefined;
  private paused = false;

  constructor(
    private readonly dataDir: string,
    private readonly logger: Logger,
    now: () => number = Date.now,
  ) {
    this.counts = new KeyRateLimits(now);
  }

  /** Admits a read of `principal` that records `events` audit events, or throws its refusal. */
  admit(principal: Pick<ApiPrincipal, 'keyId' | 'rateLimitPerMinute'>, events: number): void {
    if (events === 0) return;
    const disk = this.disk();
    if (disk !== undefined && belowReserve(disk)) throw errors.auditedReadsPaused(disk.free, reserveOf(disk));
    if (principal.rateLimitPerMinute !== null) return;
    const waitMs = this.counts.take(principal.keyId, AUDITED_READS_PER_MINUTE, events);
    if (waitMs > 0) throw errors.auditedReadsLimited(waitMs, AUDITED_READS_PER_MINUTE);
  }

  /** Whether reads of patient data are paused now (the disk below the reserve), as GET /health says it. */
  pausedNow(): boolean {
    return belowReserve(this.disk());
  }

  /**
   * The disk's space, read again once the last reading is FREE_SPACE_MAX_AGE_MS old, and at
   * every read while reads are paused (so they resume as soon as there is room).
   */
  private disk(): DiskSpace | undefined {
    const now = performance.now();
    if (this.reading === undefined || this.paused || now - this.reading.readAt > FREE_SPACE_MAX_AGE_MS) {
      this.reading = { disk: diskSpaceOf(this.dataDir), readAt: now };
      const paused = belowReserve(this.reading.disk);
      if (paused !== this.paused) this.logChange(paused, this.reading.disk);
      this.paused = paused;
    }
    return this.reading.disk;
  }

  private logChange(paused: boolean, disk: DiskSpace | undefined): void {
    const state = {
      disk_free_bytes: disk?.free ?? null,
      reserve_bytes: disk === undefined ? null : reserveOf(disk),
      data_dir: this.dataDir,
    };
    if (paused) {
      this.logger.error({
        event: 'audited_reads_paused',
        ...state,
        note: "reads of patient data are refused (507) until the data directory's disk has the reserve free again; writes go on",
      });
    } else {
      this.logger.info({ event: 'audited_reads_resumed', ...state });
    }
  }
}

// src/domain/audit/audit-reserve.ts: the disk room audited reads may not take (issue 39, M1).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  AUDITED_READ_RESERVE_BYTES,
  belowReserve,
  diskSpaceOf,
  lowDiskFindings,
  reserveOf,
} from '../../../src/domain/audit/audit-reserve.js';
import { useDataDirs } from '../../helpers/fixtures.js';

// The room reads of patient data may not take from payments (issue 39, M1): below the reserve the
// server refuses audited reads (507), and `clinic check` warns from four times it.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe('the audit trail reserve', () => {
  const dataDir = useDataDirs();

  it('keeps 256 MiB on a disk of 2 GiB or more, and an eighth of a smaller one', () => {
    assert.equal(AUDITED_READ_RESERVE_BYTES, 256 * MiB);
    assert.equal(reserveOf({ free: 0, total: 2 * GiB }), 256 * MiB, 'exactly 2 GiB');
    assert.equal(reserveOf({ free: 0, total: 2 * GiB - 8 }), 256 * MiB - 1, 'a little less: its eighth');
    assert.equal(reserveOf({ free: 0, total: 4000 * GiB }), 256 * MiB);
    assert.equal(reserveOf({ free: 0, total: 100 * MiB }), 12.5 * MiB);
    assert.equal(reserveOf({ free: 0, total: 7 }), 0, 'rounded down');
  });

  it('pauses audited reads below the reserve only: at exactly the reserve free they go on', () => {
    const disk = { total: 500 * GiB };
    assert.equal(belowReserve({ ...disk, free: 256 * MiB }), false, 'exactly the reserve');
    assert.equal(belowReserve({ ...disk, free: 256 * MiB - 1 }), true, 'one byte less');
    assert.equal(belowReserve({ ...disk, free: 0 }), true, 'a full disk');
    assert.equal(belowReserve(undefined), false, 'a disk the system would not describe pauses nothing');
  });

  it("measures the data directory's disk, and says nothing of a folder the system cannot describe", () => {
    const disk = diskSpaceOf(dataDir());
    assert.ok(disk !== undefined && disk.total > 0 && disk.free >= 0 && disk.free <= disk.total, JSON.stringify(disk));
    const missing = join(dataDir(), 'no-such-folder');
    assert.equal(diskSpaceOf(missing), undefined);
    assert.deepEqual(lowDiskFindings(missing), [], '`clinic check` does not guess');
  });
});

import { randomFillSync } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Random bytes from the operating system's generator, without loading node:crypto where the
 * kernel offers its generator as a file (/dev/urandom on Linux, the source OpenSSL and so Node's
 * own crypto draw on): node:crypto and the two dozen modules behind it cost a desk command about
 * 10 ms of its start (docs/benchmarks.md), and every command that adds a row needs an id. Bytes
 * are read a pool at a time, as Node's randomUUID does; where the file cannot be opened
 * (Windows), node:crypto fills the pool instead (the build loads it on first use: scripts/build.mjs).
 */

const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let used = POOL_BYTES;
let kernelFile: boolean | undefined;

function refill(): void {
  if (kernelFile !== false) kernelFile = readKernelRandom(pool);
  if (!kernelFile) randomFillSync(pool);
  used = 0;
}

/** Fills `target` from /dev/urandom; false where there is none to open. */
function readKernelRandom(target: Uint8Array): boolean {
  let fd: number;
  try {
    fd = openSync('/dev/urandom', 'r');
  } catch {
    return false;
  }
  try {
    for (let filled = 0; filled < target.length;) {
      const read = readSync(fd, target, filled, target.length - filled, null);
      if (read === 0) throw new Error('/dev/urandom ended');
      filled += read;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

/** `count` (at most the pool's 4096) random bytes, copied out of the pool. */
export function osRandomBytes(count: number): Uint8Array {
  if (count > POOL_BYTES) throw new RangeError(`osRandomBytes gives at most ${POOL_BYTES} bytes at a time, not ${count}`);
  if (used + count > POOL_BYTES) refill();
  const bytes = pool.slice(used, used + count);
  used += count;
  return bytes;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A new lowercase UUID version 4 (RFC 9562): 122 random bits, the version 4 and the variant 10. */
export function randomUuidV4(): string {
  const b = osRandomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = (i: number) => HEX[b[i]!]!;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

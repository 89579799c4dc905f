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

/** The offset in the pool of `count` (at most the pool's 4096) random bytes no one has had yet. */
function take(count: number): number {
  if (count > POOL_BYTES) throw new RangeError(`osRandomBytes gives at most ${POOL_BYTES} bytes at a time, not ${count}`);
  if (used + count > POOL_BYTES) refill();
  const offset = used;
  used += count;
  return offset;
}

/** `count` (at most the pool's 4096) random bytes, copied out of the pool. */
export function osRandomBytes(count: number): Uint8Array {
  const offset = take(count);
  return pool.slice(offset, offset + count);
}

/** The hex digits' character codes, and where each byte's two digits go in `8-4-4-4-12`. */
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const uuidText = Buffer.alloc(36, '-');

/**
 * A new lowercase UUID version 4 (RFC 9562): 122 random bits, the version 4 and the variant 10.
 * Written from the pool in place into one reused buffer, as fast as node:crypto's randomUUID
 * (about 0.1 µs): a copy of the bytes per id (a new ArrayBuffer each) cost the server 4 % more of
 * its time in garbage collection under POST /appointments.
 */
export function randomUuidV4(): string {
  const at = take(16);
  for (let i = 0; i < 16; i++) {
    let byte = pool[at + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    uuidText[DIGIT_AT[i]!] = HEX_DIGITS[byte >> 4]!;
    uuidText[DIGIT_AT[i]! + 1] = HEX_DIGITS[byte & 15]!;
  }
  return uuidText.toString('latin1', 0, 36);
}

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DATABASE_FILE } from '../../src/db/data-directory.js';

/**
 * Real storage faults for the fault tests: a small tmpfs that can be filled to the last byte, or
 * remounted read-only, and a database file with a page overwritten. Mounting needs root (CI runs
 * as root); elsewhere the tests that need it are skipped with a message, except in CI.
 */

/** Overwrites 512 bytes at the start of a page in the middle of the closed database file of `dataDir`. */
export function damageDatabase(dataDir: string): void {
  const path = join(dataDir, DATABASE_FILE);
  const pageSize = 4096;
  const offset = Math.floor(statSync(path).size / 2 / pageSize) * pageSize;
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, offset);
  } finally {
    closeSync(fd);
  }
}

/** A mounted tmpfs of a fixed size. */
export interface Tmpfs {
  dir: string;
  /** Writes a filler file until the file system has not one free block left. */
  fill(): void;
  /** Removes the filler: space is back. */
  free(): void;
  remount(mode: 'ro' | 'rw'): void;
  unmount(): void;
}

/** The system's own tools: test:dist runs with a PATH that holds only the executable under test. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function run(command: string, args: string[]): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, PATH: SYSTEM_PATH } });
  return { ok: result.status === 0, output: `${result.error?.message ?? ''}${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

/**
 * Mounts a tmpfs of `sizeKiB` on a new directory; undefined (and the test skipped) where mounting
 * is not allowed, unless in CI, where it must work.
 */
export function mountTmpfs(t: TestContext, sizeKiB: number): Tmpfs | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'clinic-tmpfs-'));
  const mounted = run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0700`, 'tmpfs', dir]);
  if (!mounted.ok) {
    rmSync(dir, { recursive: true, force: true });
    if (process.env.CI) throw new Error(`cannot mount a tmpfs for the fault tests: ${mounted.output}`);
    t.skip(`needs root to mount a tmpfs (${mounted.output})`);
    return undefined;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const block = Buffer.alloc(4096);
      try {
        for (;;) writeSync(fd, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    remount(mode) {
      const result = run('mount', ['-o', `remount,${mode}`, dir]);
      if (!result.ok) throw new Error(`remount ${mode} failed: ${result.output}`);
    },
    unmount() {
      run('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A data directory inside `tmpfs`. */
export function dataDirOn(tmpfs: Tmpfs): string {
  const dataDir = join(tmpfs.dir, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  return dataDir;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A second process holding the database's write lock (test/helpers/hold-write-lock.ts) until releaseWriteLock. */
export async function holdWriteLock(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/hold-write-lock.ts', join(dataDir, DATABASE_FILE)], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  assert.equal(line.toString().trim(), 'locked');
  return child;
}

/** Lets the holder of holdWriteLock go, and waits until it has rolled back and ended. */
export async function releaseWriteLock(holder: ChildProcess): Promise<void> {
  holder.stdin!.end();
  const [code] = (await once(holder, 'exit')) as [number];
  assert.equal(code, 0);
}

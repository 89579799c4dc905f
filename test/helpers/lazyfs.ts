import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Power cuts on demand with LazyFS (github.com/dsrhaslab/lazyfs, the tool Jepsen uses; see
 * ../shared/tools/lazyfs/README.md): a FUSE file system with its own page cache, which drops
 * every byte not yet fsynced when told `lazyfs::clear-cache`. It drops file contents only:
 * creating, renaming and removing files reach the backing folder at once. `.ci/run` builds it
 * (into /var/cache/lazyfs, or $LAZYFS_HOME); mounting needs root and /dev/fuse.
 */

const LAZYFS_BIN = join(process.env.LAZYFS_HOME ?? '/var/cache/lazyfs', 'src/lazyfs/build/lazyfs');
/** The system's own tools: test:dist runs with a PATH that holds only the executable under test. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Why LazyFS cannot run here, for a test's `skip`, or false. */
export const lazyFsSkipReason: string | false = (() => {
  if (process.platform !== 'linux') return 'LazyFS is a Linux FUSE file system';
  if (process.getuid?.() !== 0) return 'LazyFS needs root to mount';
  try {
    accessSync('/dev/fuse', constants.R_OK | constants.W_OK);
  } catch {
    return 'LazyFS needs /dev/fuse';
  }
  if (!existsSync(LAZYFS_BIN)) return `LazyFS is not built (${LAZYFS_BIN}): run bash ../shared/tools/lazyfs/build.sh, as .ci/run does`;
  return false;
})();

/** A mounted LazyFS over a backing folder. */
export interface LazyFs {
  /** Where the program under test writes. */
  mountDir: string;
  /** What survives a power cut, once the cache is cleared. */
  backingDir: string;
  /** Throws away every byte written but not fsynced, as a power cut does; resolves once LazyFS says it is done. */
  clearCache(): Promise<void>;
  /** Unmounts and ends LazyFS; the backing folder stays. */
  unmount(): Promise<void>;
}

/** Waits until `condition` holds, polling; fails with `what` after `ms`. */
async function until(what: string, condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`LazyFS: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Mounts LazyFS over `backingDir` (made if missing) in a new folder and resolves once it waits
 * for fault commands. Foreground and single-threaded (`-f -s`): its multi-threaded loop was seen
 * to crash about once in 20 mounts. The cache (256 MiB) must hold all a mount writes: a full
 * cache writes through, which would hide losses.
 */
export async function mountLazyFs(backingDir: string): Promise<LazyFs> {
  if (lazyFsSkipReason !== false) throw new Error(lazyFsSkipReason);
  mkdirSync(backingDir, { recursive: true, mode: 0o700 });
  // No dash in the config's path: LazyFS ignores --config-path when it contains `-o`.
  const work = mkdtempSync(join(tmpdir(), 'lazyfs'));
  const mountDir = join(work, 'mnt');
  mkdirSync(mountDir);
  const fifo = join(work, 'faults.fifo');
  const log = join(work, 'lazyfs.log');
  const config = join(work, 'config.toml');
  writeFileSync(
    config,
    [
      '[faults]',
      `fifo_path="${fifo}"`,
      '[cache]',
      'apply_eviction=false',
      '[cache.simple]',
      'custom_size="256mb"',
      'blocks_per_page=1',
      '[filesystem]',
      'log_all_operations=false',
      `logfile="${log}"`,
      '',
    ].join('\n'),
  );
  const logText = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
  const child: ChildProcess = spawn(
    LAZYFS_BIN,
    [mountDir, '--config-path', config, '-o', 'modules=subdir', '-o', `subdir=${backingDir}`, '-f', '-s'],
    { stdio: 'ignore', env: { ...process.env, PATH: SYSTEM_PATH } },
  );
  const exited = once(child, 'exit');
  let clears = 0;
  const unmount = async () => {
    spawnSync('fusermount3', ['-u', mountDir], { env: { ...process.env, PATH: SYSTEM_PATH } });
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await until('the mount', () => logText().includes('waiting for fault commands'), 30_000);
  } catch (error) {
    await unmount();
    throw error;
  }
  return {
    mountDir,
    backingDir,
    async clearCache() {
      clears += 1;
      await writeFile(fifo, 'lazyfs::clear-cache\n');
      await until('the cache to be cleared', () => logText().split('cache is cleared').length > clears, 10_000);
    },
    unmount,
  };
}

/** A description of the machine a benchmark ran on, so that figures are read with their context. */
import { execFileSync } from 'node:child_process';
import { cpus, release, totalmem } from 'node:os';

function run(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** CPU, memory, kernel, the file system the data lives on, and the code's commit. */
export function describeMachine(dataDir: string): string[] {
  const processors = cpus();
  const fileSystem = run('df', ['--output=source,fstype', dataDir]).split('\n').at(-1)?.trim().replace(/\s+/, ' ') ?? 'unknown';
  const dirty = run('git', ['status', '--porcelain', '--untracked-files=no']) === '' ? '' : ' (with uncommitted changes)';
  return [
    `CPU: ${processors.length} × ${processors[0]?.model ?? 'unknown'}`,
    `memory: ${(totalmem() / 1024 ** 3).toFixed(0)} GiB; kernel: Linux ${release()}`,
    `data on: ${fileSystem} (${dataDir})`,
    `commit: ${run('git', ['rev-parse', '--short', 'HEAD'])}${dirty}`,
  ];
}

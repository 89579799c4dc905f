import { join } from 'node:path';
import { mountLazyFs } from './lazyfs.js';
import { startServeProcess, type ServeProcess } from './run-cli.js';

/** What one boot between power cuts hands its load. */
export interface PoweredBoot<T> {
  /** What the clients send to, made for this boot's server. */
  target: T;
  /** The data directory the server keeps on LazyFS. */
  dataDir: string;
  /** Cuts the power: the program dies first, then (when the boot ends) everything not fsynced is gone. */
  cutPower: () => void;
  /** The clients' work, waited for once the power is gone. */
  awaitAfterCut: (clients: Promise<unknown>) => void;
}

/**
 * One boot of a power-cut test: LazyFS mounted over what the disk `backing` kept, `clinic serve`
 * on its data directory, and `load` run against `targetOf(server)`. However `load` ends, the
 * power is cut (the target stops sending, the program is killed), what was not fsynced is
 * dropped, the clients are waited for, and LazyFS is unmounted.
 */
export async function bootUntilPowerCut<T extends { stopping: boolean }>(
  backing: string,
  targetOf: (server: ServeProcess) => T,
  load: (boot: PoweredBoot<T>) => Promise<void>,
): Promise<void> {
  const lazyfs = await mountLazyFs(backing);
  try {
    const dataDir = join(lazyfs.mountDir, 'data');
    const server = await startServeProcess(['--data', dataDir]);
    const target = targetOf(server);
    const cutPower = () => {
      target.stopping = true;
      server.child.kill('SIGKILL');
    };
    let clients: Promise<unknown> | undefined;
    try {
      const awaitAfterCut = (started: Promise<unknown>) => {
        clients = started;
      };
      await load({ target, dataDir, cutPower, awaitAfterCut });
    } finally {
      cutPower();
      await server.exited;
      await lazyfs.clearCache();
      await clients;
    }
  } finally {
    await lazyfs.unmount();
  }
}

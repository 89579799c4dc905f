/** A worker's passes, one after another: a pass now, then one every `intervalMs` after the previous ended. */
export interface PassLoop {
  /** Lets the pass in progress finish; no pass starts afterwards. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` now and then every `intervalMs` after the previous one ended, so passes never
 * overlap; `pass` handles its own errors (a pass that throws would end the loop's promise chain
 * with it, so it must not).
 */
export function repeatPasses(pass: () => Promise<void>, intervalMs: number): PassLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().then(schedule);
    }, intervalMs);
  };
  running = pass().then(schedule);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

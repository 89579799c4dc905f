/** A worker's passes, one after another: a pass now, then one every `intervalMs` after the previous ended. */
export interface PassLoop {
  /** Aborts the pass in progress (its signal) and lets it finish; no pass starts afterwards. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` now and then every `intervalMs` after the previous one ended, so passes never
 * overlap; `pass` handles its own errors (a pass that throws would end the loop's promise chain
 * with it, so it must not). A long pass may watch `signal`, aborted at stop, to end early.
 */
export function repeatPasses(pass: (signal: AbortSignal) => Promise<void>, intervalMs: number): PassLoop {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => {
      running = pass(stopping.signal).then(schedule);
    }, intervalMs);
  };
  running = pass(stopping.signal).then(schedule);
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}

// The V8 flags dist/clinic runs with (the execArgv of its SEA configuration, scripts/package.mjs).
// npm run bench gives the same to the servers it runs from source. Measured in bench/README.md.
export const RUNTIME_FLAGS = [
  // A young generation of 1 MiB a semi-space instead of up to 16: the buffers a document upload
  // streams through are freed by the next scavenge, which then comes every few hundred KiB of it
  // instead of every few dozen MiB. The server's memory rose 77 MiB during a 200 MiB upload with
  // V8's default and 27 MiB with 2 MiB. 1 MiB is what the server has run with since it took
  // --optimize-for-size, which implies it; V8 leaves this flag out of a code cache's hash.
  '--max-semi-space-size=1',
  // Not --optimize-for-size: `clinic serve` sets it once it has started (src/server/memory-mode.ts
  // says why). Without it here, serve's start took 0.83-0.93 of its time, `patient find` 0.91 and
  // on a desk PC 0.89 (docs/benchmarks.md, "Fifth pass").
];

// The V8 flags dist/clinic runs with (the execArgv of its SEA configuration, scripts/package.mjs).
// npm run bench gives the same to the servers it runs from source. Measured in bench/README.md.
export const RUNTIME_FLAGS = [
  // A young generation of 2 MiB a semi-space instead of up to 16: the buffers a document upload
  // streams through are freed by the next scavenge, which then comes every few hundred KiB of it
  // instead of every few dozen MiB. The server's memory rose 77 MiB during a 200 MiB upload with
  // V8's default and 27 MiB with this; 1 MiB gave 17 MiB but spent half as much time again in
  // scavenges under load (3.7 % of the time against 2.4 %).
  //
  // No --optimize-for-size (issue 43). It was here to keep the old generation small after many
  // uploads, but V8 also makes it imply --max-semi-space-size=1, whatever this list says, so the
  // server ran with 1 MiB, not 2. Without it, in one run on the same database: server CPU per
  // answer 8-19 % lower on every scenario (POST /patients 320 → 297 µs, a search page of 50
  // 1,862 → 1,566 µs, a 1 MiB upload 7.9 → 5.0 ms), start-up without the 70 ms of Node's built-in
  // modules losing their code cache, and 6 MiB more RSS after the run (153 MiB against 147).
  '--max-semi-space-size=2',
];

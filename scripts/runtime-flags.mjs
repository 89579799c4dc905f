// The V8 flags dist/clinic runs with (the execArgv of its SEA configuration, scripts/package.mjs).
// npm run bench gives the same to the servers it runs from source. Measured in bench/README.md.
export const RUNTIME_FLAGS = [
  // A young generation of 2 MiB a semi-space instead of up to 16: the buffers a document upload
  // streams through are freed by the next scavenge, which then comes every few hundred KiB of it
  // instead of every few dozen MiB. The server's memory rose 77 MiB during a 200 MiB upload with
  // V8's default and 27 MiB with this; 1 MiB gave 17 MiB but spent half as much time again in
  // scavenges under load (3.7 % of the time against 2.4 %).
  '--max-semi-space-size=2',
  // V8 grows the old generation more slowly and collects it sooner. After 2,000 uploads of 1 MiB
  // the server held 50 MiB of private memory instead of 102 (V8's heap 20 MiB instead of 63),
  // and 151-158 MiB RSS after a whole benchmark run instead of 169-179; throughput within the
  // run-to-run noise. The price: a flag V8 hashes, so Node's built-in modules lose their
  // embedded code cache and start-up takes about 70 ms more (218 ms instead of 150).
  // --heap-growing-percent=10 was tried instead: 156-163 MiB after the run, start-up 169 ms.
  // V8 makes this flag imply --max-semi-space-size=1 whatever the line above says, so the young
  // generation is 1 MiB. Without the flag (issue 43, 2026-11-30) the server spent 8-19 % less CPU
  // per answer, but held 169 MiB (168-209) after a whole benchmark run instead of 149-153: kept.
  '--optimize-for-size',
];

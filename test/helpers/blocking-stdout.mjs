// Loaded into every test process (npm test's --import): makes standard output blocking where it is
// a pipe. A test file's process sends its results to the runner over that pipe, and with
// --test-force-exit the runner ends the process once its tests are done: writes still queued on a
// non-blocking pipe were lost, so a file's last results vanished from the report while it exited
// 0 (seen here as 17 to 54 of one file's 54 tests reported, run to run; nodejs/node#64833 reports
// failures lost the same way). Node does the same for its own pipes before an ordinary exit.
process.stdout._handle?.setBlocking?.(true);

// The real server (startClinicServer, as `clinic serve` starts it) in a process of its own, on a
// clock the test moves: this process's Date follows the time written in CLOCK_FILE (milliseconds
// since the epoch), read every 5 ms; timers stay real. Each time it follows, it writes the time
// to CLOCK_FILE.seen, so that the test knows when the server's clock has moved instead of waiting
// long enough. For the tests that let days pass for a server that can be killed
// (test/fault/reminder-week.test.ts).
//   node --import tsx test/helpers/serve-on-clock.ts DATA_DIR CLOCK_FILE [SMTP_URL]
// Prints one JSON line {"event":"listening","address":…} once it serves, and stops on SIGTERM.
import { readFileSync, writeFileSync } from 'node:fs';
import { mock } from 'node:test';
import { silentLogger } from '../../src/logger.js';
import { startClinicServer } from '../../src/server/clinic-server.js';
import { onLoopback } from './loopback-server.js';

const [dataDir = '', clockFile = '', smtpUrl] = process.argv.slice(2);
const readClock = () => Number(readFileSync(clockFile, 'utf8'));
const say = (now: number) => writeFileSync(`${clockFile}.seen`, String(now));
mock.timers.enable({ apis: ['Date'], now: readClock() });
say(Date.now());
const follow = setInterval(() => {
  const now = readClock();
  if (Number.isFinite(now) && now > Date.now()) {
    mock.timers.setTime(now);
    say(now);
  }
}, 5);

const server = await startClinicServer({
  ...onLoopback(dataDir),
  documentLimitBytes: 1024 * 1024,
  ...(smtpUrl === undefined ? {} : { smtp: { url: smtpUrl, from: 'praxis@example.org' } }),
  logger: silentLogger,
  shutdownGraceMs: 1000,
  reminderPassMs: 10,
});
process.stdout.write(`${JSON.stringify({ event: 'listening', address: server.address })}\n`);
process.once('SIGTERM', () => {
  clearInterval(follow);
  void server.stop().then(() => process.exit(0));
});

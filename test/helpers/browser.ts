import { chromium, errors, type Browser, type BrowserServer } from 'playwright-core';

/** Debian's chromium; .ci/run installs it. Never a browser downloaded by Playwright. */
export const CHROMIUM = '/usr/bin/chromium';

/** Raised when the browser or a step in it does not finish in its time. */
export class BrowserDeadlineError extends Error {}

/**
 * `promise`, or a BrowserDeadlineError after `ms`. Some Playwright calls (newPage, close,
 * Response.text) have no timeout of their own: a browser that stops answering would hold the
 * test file open until the browser dies, which once cost CI 76 minutes.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new BrowserDeadlineError(`${what} did not finish in ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** True for a browser that did not answer in time, as opposed to a page that answered wrongly. */
export function isBrowserTimeout(error: unknown): boolean {
  return error instanceof BrowserDeadlineError || error instanceof errors.TimeoutError;
}

export interface ChromiumSession {
  browser: Browser;
  /** The last lines the browser process printed, for a failing test's message. */
  log(): string;
  /** Closes the browser; kills its process group if it does not close within seconds. */
  close(): Promise<void>;
}

/** Lines kept of the browser's output: enough for a crash or a hang, not a whole session. */
const LOG_LINES = 60;

/**
 * A headless chromium as a process this test owns (launchServer, then connect), so that it can
 * be killed however it hangs. The flags are the ones this machine's chromium is known to start
 * with offline (a CI machine may refuse every connection out), then `extraArgs`
 * (say `--host-resolver-rules=MAP rebind.example 127.0.0.1`, the DNS of a rebinding attacker).
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<ChromiumSession> {
  const lines: string[] = [];
  const server: BrowserServer = await chromium.launchServer({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      '--disable-dev-shm-usage',
      '--enable-logging=stderr',
      '--log-level=0',
      ...extraArgs,
    ],
    // Debian's launcher is a shell script that needs the usual tools, whatever PATH the tests run with.
    env: { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin' },
    timeout: 20_000,
  });
  for (const stream of [server.process().stdout, server.process().stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      lines.splice(0, lines.length - LOG_LINES);
    });
  }
  // Playwright starts the browser as the leader of its own process group; the last resort kills the whole group.
  const killGroup = () => {
    const pid = server.process().pid;
    try {
      if (pid !== undefined) process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is gone already.
    }
  };
  const kill = () => withDeadline(server.kill(), 5_000, 'killing chromium').catch(killGroup);
  let browser: Browser;
  try {
    browser = await chromium.connect(server.wsEndpoint(), { timeout: 5_000 });
  } catch (error) {
    await kill();
    throw error;
  }
  return {
    browser,
    log: () => lines.join('\n'),
    async close() {
      // A connected browser's close() only disconnects; the server's close() ends the process.
      await withDeadline(browser.close(), 5_000, 'disconnecting from chromium').catch(() => undefined);
      await withDeadline(server.close(), 5_000, 'closing chromium').catch(kill);
    },
  };
}

/** One check in a browser (about 5 s here); each step in it has 20 s. */
const CHECK_MS = 45_000;
/**
 * A second attempt, with a new browser, only when the browser did not answer in time, never when
 * the page was wrong. Two attempts (launch 25 s, check 45 s, close 15 s) fit in a test of 175 s.
 */
const ATTEMPTS = 2;

/**
 * Runs `check` in a new headless chromium (launched with `extraArgs`), closing it after; tries
 * once more with a new browser only if the browser stopped answering. A failing check's error
 * carries the browser's last output.
 */
export async function inChromium(
  t: { diagnostic(message: string): void },
  check: (browser: Browser) => Promise<void>,
  extraArgs: readonly string[] = [],
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let session: ChromiumSession | undefined;
    try {
      session = await launchChromium(extraArgs);
      await withDeadline(check(session.browser), CHECK_MS, 'the check in the browser');
      return;
    } catch (error) {
      const log = session?.log() ?? '';
      if (attempt === ATTEMPTS || !isBrowserTimeout(error)) {
        throw log === '' ? error : new Error(`${(error as Error).message}\nthe browser's last output:\n${log}`, { cause: error });
      }
      t.diagnostic(`attempt ${attempt}: ${(error as Error).message}; the browser's last output follows`);
      for (const line of log.split('\n').filter(Boolean)) t.diagnostic(line);
    } finally {
      await session?.close();
    }
  }
}

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { OPERATIONS } from '../../src/server/operations.js';
import { assertMatchesContract } from '../helpers/contract.js';
import { useTestServer } from '../helpers/fixtures.js';

/** Debian's chromium; .ci/run installs it. Never a browser downloaded by Playwright. */
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
// Skipped on a developer's machine without it; never in CI, where a missing browser must fail.
const missing = !existsSync(CHROMIUM) && !process.env.CI && `needs ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;

describe('the docs page in a browser', { skip: missing, timeout: 60_000 }, () => {
  const server = useTestServer();
  let browser: Browser;

  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking'],
      // Debian's launcher is a shell script that needs the usual tools, whatever PATH the tests run with.
      env: { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin' },
    });
  });
  after(async () => {
    await browser?.close();
  });

  it('lists every operation offline and calls GET /document-types through "Try it out"', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    const problems: string[] = [];
    // Anything not served by the program itself fails the test: no CDN, no fonts, no validator.
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin === new URL(server.baseUrl).origin) return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });

    await page.goto(`${server.baseUrl}/docs`);
    // Every operation of the registry is rendered from the served document.
    await page
      .locator('.opblock')
      .nth(OPERATIONS.length - 1)
      .waitFor();
    assert.equal(await page.locator('.opblock').count(), OPERATIONS.length);
    for (const op of OPERATIONS) {
      const block = page.locator(`#operations-${op.tag}-${op.operationId}`);
      assert.equal(await block.count(), 1, `${op.method.toUpperCase()} ${op.path} is listed`);
      assert.equal(await block.locator('.opblock-summary-path').getAttribute('data-path'), op.path);
    }

    const lookup = page.locator('#operations-lookups-listDocumentTypes');
    await lookup.locator('.opblock-summary-control').click();
    await lookup.locator('.try-out__btn').click();
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url() === `${server.baseUrl}/document-types`),
      lookup.locator('.execute').click(),
    ]);
    const text = await answer.text();
    assertMatchesContract('GET', answer.url(), { status: answer.status(), headers: await answer.allHeaders(), text });
    const shown = lookup.locator('.live-responses-table tbody .response');
    await shown.waitFor();
    assert.match(await shown.locator('.response-col_status').innerText(), /^200/);
    assert.match(await shown.locator('.microlight').first().innerText(), /"xrays"/);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}docs-page.png`, fullPage: true });
    assert.deepEqual(outside, [], 'the page loaded something from outside the program');
    assert.deepEqual(problems, []);
  });
});

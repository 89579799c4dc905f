import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { OPERATIONS } from '../../../src/server/api/api-operations.js';
import { CHROMIUM, inChromium, withDeadline } from '../../helpers/browser.js';
import { assertMatchesContract } from '../../helpers/contract.js';
import { useTestServer } from '../../helpers/fixtures.js';

const ARTIFACTS = fileURLToPath(new URL('../../artifacts/', import.meta.url));
// Skipped on a developer's machine without it; never in CI, where a missing browser must fail.
const missing = !existsSync(CHROMIUM) && !process.env.CI && `needs ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;

describe('the docs page in a browser', { skip: missing }, () => {
  const server = useTestServer();

  it('lists every operation offline and calls GET /document-types through "Try it out"', { timeout: 175_000 }, async (t) => {
    await inChromium(t, (browser) => checkDocsPage(browser, server.baseUrl));
  });
});

/** Opens /docs, checks every operation is listed, and runs GET /document-types from the page. */
async function checkDocsPage(browser: Browser, baseUrl: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(20_000);
  const outside: string[] = [];
  const problems: string[] = [];
  // Anything not served by the program itself fails the test: no CDN, no fonts, no validator.
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === new URL(baseUrl).origin) return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });

  await page.goto(`${baseUrl}/docs`);
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
    page.waitForResponse((response) => response.url() === `${baseUrl}/document-types`),
    lookup.locator('.execute').click(),
  ]);
  const text = await withDeadline(answer.text(), 20_000, 'reading the answer in the browser');
  assertMatchesContract('GET', answer.url(), { status: answer.status(), headers: await answer.allHeaders(), text });
  const shown = lookup.locator('.live-responses-table tbody .response');
  await shown.waitFor();
  assert.match(await shown.locator('.response-col_status').innerText(), /^200/);
  assert.match(await shown.locator('.microlight').first().innerText(), /"xrays"/);

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}docs-page.png`, fullPage: true });
  assert.deepEqual(outside, [], 'the page loaded something from outside the program');
  assert.deepEqual(problems, []);
}

import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../../../src/server/clinic-server.ts', import.meta.url));
const LOOPBACK = fileURLToPath(new URL('../../helpers/loopback-server.ts', import.meta.url));
const LOGGER = fileURLToPath(new URL('../../../src/logger.ts', import.meta.url));

interface Answer {
  status: number;
  contentType: string;
  contentLength: string;
  text: string;
}

/**
 * The real server started in a process of its own (this test process has Node's fetch loaded
 * already), asked for `paths` over node:http; what it answered, and whether that process has
 * loaded Node's fetch implementation (undici) by then.
 */
function firstAnswers(dataDir: string, paths: readonly string[]): { answers: Answer[]; fetchLoaded: boolean } {
  const script = `
    import { get } from 'node:http';
    import { startClinicServer } from ${JSON.stringify(SERVER)};
    import { onLoopback } from ${JSON.stringify(LOOPBACK)};
    import { silentLogger } from ${JSON.stringify(LOGGER)};
    const server = await startClinicServer({ ...onLoopback(${JSON.stringify(dataDir)}), documentLimitBytes: 1048576, logger: silentLogger, shutdownGraceMs: 500 });
    const ask = (path) => new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port: server.port, path }, (answer) => {
        let text = '';
        answer.setEncoding('utf8').on('data', (chunk) => (text += chunk)).on('end', () =>
          resolve({ status: answer.statusCode, contentType: answer.headers['content-type'], contentLength: answer.headers['content-length'], text }));
      }).on('error', reject);
    });
    const answers = [];
    for (const path of ${JSON.stringify(paths)}) answers.push(await ask(path));
    const fetchLoaded = process.moduleLoadList.some((name) => name.includes('undici'));
    await server.stop();
    console.log(JSON.stringify({ answers, fetchLoaded }));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as { answers: Answer[]; fetchLoaded: boolean };
}

describe("the server's JSON answers", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-json-answer-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("answer a list, a refusal and an unknown path as JSON text without loading Node's fetch (40-60 ms of serve's first answer)", () => {
    const { answers, fetchLoaded } = firstAnswers(dataDir, [
      '/api/public/v1/document-types',
      '/api/public/v1/patients',
      '/api/public/v1/no-such-thing',
    ]);
    assert.deepEqual(
      answers.map(({ status, contentType }) => [status, contentType]),
      [
        [200, 'application/json; charset=utf-8'],
        [401, 'application/json; charset=utf-8'],
        [404, 'application/json; charset=utf-8'],
      ],
    );
    for (const { text, contentLength } of answers) assert.equal(Number(contentLength), Buffer.byteLength(text));
    const [types, refusal, unknown] = answers.map(({ text }) => JSON.parse(text) as unknown);
    assert.ok(Array.isArray(types) && types.some((type) => (type as { key: string }).key === 'invoices'));
    assert.equal((refusal as { detail: { code: string } }).detail.code, 'UNAUTHENTICATED');
    assert.equal((unknown as { detail: { code: string } }).detail.code, 'NOT_FOUND');
    assert.equal(fetchLoaded, false, "a JSON answer made the server load Node's fetch implementation (undici)");
  });
});

import assert from 'node:assert/strict';
import { closeSync, openSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { createApiKey } from '../../../src/domain/api-keys.js';
import type { Logger } from '../../../src/logger.js';
import { AUDITED_READS_PER_MINUTE } from '../../../src/server/throttles/audited-read-guard.js';
import { trailOf } from '../../helpers/audit-chain.js';
import { buildPatient, buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { dataDirOn, mountTmpfs } from '../../helpers/faults.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { runClinic, testingExecutable } from '../../helpers/run-cli.js';
import { startTestServer } from '../../helpers/test-server.js';

const MiB = 1024 * 1024;

/** Waits for a fresh clock minute when less than `needed` ms of this one are left: a key's counts are per clock minute. */
async function withinOneMinute(needed = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needed) await sleep(left + 50);
}

/**
 * Issue 39, M1: a read-only key filled the disk through the audit trail (64,200 events in 20 s),
 * and then nothing could be written. Now a key without a limit of its own may have its reads
 * record AUDITED_READS_PER_MINUTE events a minute, and below the trail's reserve of free space
 * reads of patient data pause while payments and changes go on.
 */
describe('reads that record audit events, per key', () => {
  const server = useTestServer();

  it(`refuses a key without --rate-limit past ${AUDITED_READS_PER_MINUTE} events a minute with 429 and Retry-After, recording nothing more; writes, other keys and the desk go on`, async () => {
    assert.equal(AUDITED_READS_PER_MINUTE, 3000);
    for (let i = 0; i < 150; i += 1) createTestPatient(server.db, { last_name: `Quellmann${i}`, email: `q${i}@example.org` });
    const key = server.createKey();
    const other = server.createKey(['patients:read']);
    await withinOneMinute();
    const before = trailOf(server.dataDir).length;
    for (let page = 0; page < AUDITED_READS_PER_MINUTE / 150; page += 1) {
      const search = await server.request('GET', '/patients?q=quellmann&limit=150', { key });
      assert.equal(search.status, 200, search.text.slice(0, 300));
    }
    assert.equal(trailOf(server.dataDir).length, before + AUDITED_READS_PER_MINUTE);

    const refused = await server.request('GET', '/patients?q=quellmann&limit=150', { key });
    assert.equal(refused.status, 429, refused.text.slice(0, 300));
    assert.equal(refused.body.detail.code, 'TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    const patientId = (await server.request('GET', '/patients?q=quellmann&limit=1', { key: other })).body[0].id as string;
    assert.equal((await server.request('GET', `/patients/${patientId}`, { key })).status, 429, 'one patient more is refused too');
    assert.equal(trailOf(server.dataDir).length, before + AUDITED_READS_PER_MINUTE + 1, 'only the other key’s search was recorded');

    // What records no read is not counted: a lookup, a write.
    assert.equal((await server.request('GET', '/doctors', { key })).status, 200);
    assert.equal((await server.request('POST', '/patients', { key, body: buildPatient({ email: 'new@example.org' }) })).status, 201);
    // Another key, the desk, and a key with a limit of its own are not held by this key's count.
    assert.equal((await server.request('GET', `/patients/${patientId}`, { key: other })).status, 200);
    const own = createApiKey(server.db, { name: 'Own limit', rate_limit_per_minute: 1000 }).key;
    for (let page = 0; page < 25; page += 1) {
      assert.equal((await server.request('GET', '/patients?q=quellmann&limit=150', { key: own })).status, 200);
    }
    const desk = await runClinic(['patient', 'find', 'quellmann', '--json', '--data', server.dataDir]);
    assert.equal(desk.code, 0, desk.stderr);
  });
});

describe('reads that record audit events, on a disk below the reserve', () => {
  it('are refused with 507 STORAGE_FAILED, recording nothing, while payments and patients are written; health, the log and check say so; they resume when there is room', async (t) => {
    // 640 MiB: its reserve is an eighth, 80 MiB, above the 64 MiB at which GET /health turns unavailable.
    const tmpfs = mountTmpfs(t, 640 * 1024);
    if (tmpfs === undefined) return;
    const logged: Record<string, unknown>[] = [];
    const logger: Logger = { info: (event) => logged.push(event), error: (event) => logged.push(event) };
    const server = await startTestServer(testingExecutable ? {} : { logger }, dataDirOn(tmpfs));
    const filler = join(tmpfs.dir, 'filler');
    try {
      const patient = createTestPatient(server.db);
      const invoice = createTestInvoice(server.db, { patient_id: patient.id });
      assert.equal((await server.request('GET', `/patients/${patient.id}`)).status, 200);
      assert.equal((await server.request('GET', '/health', { key: null })).headers.get('clinic-audited-reads'), 'ok');

      // Leave about 72 MiB: above the 64 MiB of GET /health's "full", below the 80 MiB reserve.
      const { bavail, bsize } = statfsSync(tmpfs.dir);
      const fd = openSync(filler, 'w');
      const block = Buffer.alloc(MiB);
      for (let left = bavail * bsize - 72 * MiB; left > 0; left -= MiB) writeSync(fd, block, 0, Math.min(MiB, left));
      closeSync(fd);
      // The server reads the free space at most four times a second while there is room.
      await sleep(300);

      const before = trailOf(server.dataDir).length;
      for (const path of [`/patients/${patient.id}`, '/patients?q=ada', `/patients/${patient.id}/documents`]) {
        const refused = await server.request('GET', path);
        assert.equal(refused.status, 507, `${path}: ${refused.text}`);
        assert.equal(refused.body.detail.code, 'STORAGE_FAILED');
        assert.match(refused.body.detail.message, /has \d+ MiB free, less than the 80 MiB kept for payments/);
      }
      assert.equal(trailOf(server.dataDir).length, before, 'a refused read records nothing');

      const payment = await server.request('POST', `/invoices/${invoice.id}/payments`, { body: buildPayment() });
      assert.equal(payment.status, 200, payment.text);
      const created = await server.request('POST', '/patients', { body: buildPatient({ email: 'later@example.org' }) });
      assert.equal(created.status, 201, created.text);

      const health = await server.request('GET', '/health', { key: null });
      assert.equal(health.status, 200, health.text);
      assert.deepEqual([health.body.status, health.body.database], ['ok', 'ok']);
      assert.equal(health.headers.get('clinic-audited-reads'), 'paused');

      const check = await runClinic(['check', '--json', '--data', server.dataDir]);
      assert.equal(check.code, 1);
      const trail = (JSON.parse(check.stdout) as { checks: { name: string; findings: string[] }[] }).checks.find(
        (c) => c.name === 'audit_trail',
      )!;
      assert.match(trail.findings.join('\n'), /disk has \d+ MiB free, less than 320 MiB: so the server now refuses reads of patient data/);

      tmpfs.free();
      assert.equal((await server.request('GET', `/patients/${patient.id}`)).status, 200, 'resumed at once');
      assert.equal((await server.request('GET', '/health', { key: null })).headers.get('clinic-audited-reads'), 'ok');
      if (!testingExecutable) {
        assert.deepEqual(
          logged.filter((event) => String(event.event).startsWith('audited_reads_')).map((event) => event.event),
          ['audited_reads_paused', 'audited_reads_resumed'],
          'each change logged once',
        );
      }
    } finally {
      await server.close();
      tmpfs.unmount();
    }
  });
});

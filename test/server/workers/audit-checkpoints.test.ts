import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { appendAuditEvents } from '../../../src/domain/audit/record-audit.js';
import type { Logger } from '../../../src/logger.js';
import { startClinicServer } from '../../../src/server/clinic-server.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../../src/domain/documents/document-limit.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { onLoopback } from '../../helpers/loopback-server.js';

const tempDir = useDataDirs();

/** The checkpoints of the anchor of `dataDir`, as seq and who wrote them. */
const checkpointsOf = (dataDir: string) =>
  readFileSync(join(dataDir, 'audit-anchor', 'checkpoints'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { seq: number; kind: string })
    .map((checkpoint) => [checkpoint.seq, checkpoint.kind]);

/**
 * Issue 39, M2: `clinic serve` anchors the audit trail's head at its start, at every interval (an
 * hour; a fifth of a second here) and at its stop, and says so in its log; a trail it finds
 * without an anchor is anchored from its head on, and the log says that too.
 */
describe('clinic serve’s checkpoints of the audit trail', () => {
  it('anchors the trail at start (saying it made the anchor), on its interval while it serves, and at stop', async () => {
    const dataDir = tempDir();
    const db = openDatabase(dataDir);
    const patient = createTestPatient(db);
    db.transaction(() =>
      appendAuditEvents(db, { type: 'cli', id: 'maria', name: 'maria', source: 'reception-pc', requestId: null }, [
        { action: 'patient.read', patientId: patient.id, subjectId: patient.id },
      ]),
    ).immediate();
    db.close();

    const logged: Record<string, unknown>[] = [];
    const logger: Logger = { info: (event) => logged.push(event), error: (event) => logged.push(event) };
    const server = await startClinicServer({
      ...onLoopback(dataDir),
      documentLimitBytes: DEFAULT_DOCUMENT_LIMIT_BYTES,
      logger,
      auditCheckpointEveryMs: 200,
    });
    let stopped = false;
    try {
      await sleep(100);
      assert.deepEqual(checkpointsOf(dataDir), [[1, 'serve']]);
      assert.deepEqual(
        logged.filter((event) => event.event === 'audit_anchor_made').map((event) => [event.folder, event.from_seq]),
        [[join(dataDir, 'audit-anchor'), 1]],
      );
      const read = await fetch(`${server.address}/patients/${patient.id}`, {
        headers: { authorization: `Bearer ${server.firstKey!.key}` },
      });
      assert.equal(read.status, 200);
      await sleep(500);
      assert.deepEqual(
        checkpointsOf(dataDir),
        [
          [1, 'serve'],
          [2, 'serve'],
        ],
        'the read anchored on the interval, once: an unchanged head adds nothing',
      );
      assert.equal(
        (await fetch(`${server.address}/patients/${patient.id}`, { headers: { authorization: `Bearer ${server.firstKey!.key}` } })).status,
        200,
      );
      await server.stop();
      stopped = true;
      assert.deepEqual(checkpointsOf(dataDir).at(-1), [3, 'serve'], 'the last read anchored by the stop at the latest');
      assert.deepEqual(
        logged.filter((event) => event.event === 'audit_checkpoint_refused'),
        [],
      );
    } finally {
      if (!stopped) await server.stop();
    }
  });
});

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { iterateAuditEvents } from '../../src/db/audit-events.js';
import { openDatabase } from '../../src/db/open-database.js';
import { appendAuditEvents, DATA_EXPORT, DATA_IMPORT } from '../../src/domain/audit/record-audit.js';
import type { Actor } from '../../src/domain/audit/audit-event.js';
import { makeDataDir } from '../helpers/test-server.js';

const frontDesk: Actor = { type: 'cli', id: 'reception', name: 'reception', source: 'desk-1', requestId: null };
const otherPc: Actor = { type: 'cli', id: 'nurse', name: 'nurse', source: 'room-2', requestId: null };

describe('insertAuditEvents', () => {
  it('names the right action and person after a transaction that added them rolled back and another took their refs', () => {
    const dataDir = makeDataDir();
    const server = openDatabase(dataDir);
    const desk = openDatabase(dataDir);
    try {
      // The first connection adds an action and an actor, finds them again in the same
      // transaction, and rolls back: their refs were never committed.
      server.exec('BEGIN IMMEDIATE');
      appendAuditEvents(server, frontDesk, [DATA_EXPORT]);
      appendAuditEvents(server, frontDesk, [DATA_EXPORT]);
      server.exec('ROLLBACK');
      // Another connection commits another action and actor, which take those refs.
      desk.exec('BEGIN IMMEDIATE');
      appendAuditEvents(desk, otherPc, [DATA_IMPORT]);
      desk.exec('COMMIT');
      server.exec('BEGIN IMMEDIATE');
      appendAuditEvents(server, frontDesk, [DATA_EXPORT]);
      server.exec('COMMIT');

      const events = [...iterateAuditEvents(desk)].map((event) => `${event.action} by ${event.actor_name} at ${event.source}`);
      assert.deepEqual(events, ['data.import by nurse at room-2', 'data.export by reception at desk-1']);
    } finally {
      server.close();
      desk.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

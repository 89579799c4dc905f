import { listAuditEventRows } from '../../db/audit-events.js';
import type { Db } from '../../db/open-database.js';
import { writeFileWhole, type WriteOptions } from '../written-file.js';
import { presentAuditEvent } from './audit-event.js';
import { fhirAuditEvent } from './fhir-audit-event.js';

/** `clinic audit export --json`: where the events went and how many. */
export interface AuditExport {
  file: string;
  events: number;
  first_seq: number | null;
  last_seq: number | null;
}

/** Events read per query while exporting: a long trail is written in slices, never held whole. */
const SLICE = 1000;

/**
 * Writes the events of the window [from, to) (either end null: no bound) to `target` as FHIR R4
 * AuditEvent resources, one JSON object per line (NDJSON), in seq order; the file appears whole
 * or not at all (writeFileWhole). Reading the trail records nothing.
 */
export async function exportFhirAuditEvents(
  db: Db,
  target: string,
  window: { from: string | null; to: string | null },
  options: WriteOptions,
): Promise<AuditExport> {
  return writeFileWhole(target, options, async (file) => {
    let after = 0;
    let events = 0;
    let first: number | null = null;
    for (;;) {
      const rows = listAuditEventRows(db, { patientId: null, actions: null, ...window, after, limit: SLICE });
      if (rows.length === 0) break;
      const lines = rows.map((row) => `${JSON.stringify(fhirAuditEvent(presentAuditEvent(row)))}\n`).join('');
      await file.write(Buffer.from(lines, 'utf8'));
      first ??= rows[0]!.seq;
      after = rows.at(-1)!.seq;
      events += rows.length;
    }
    return { file: target, events, first_seq: first, last_seq: events === 0 ? null : after };
  });
}

import type { AuditEvent } from '../../domain/audit/audit-event.js';
import type { AuditExport } from '../../domain/audit/export-audit-trail.js';
import { fhirAuditEvent } from '../../domain/audit/fhir-audit-event.js';
import { writeFileWhole } from '../../domain/written-file.js';
import { API_PATH } from './server-requests.js';
import { refusalOf } from './server-requests.js';
import type { DeskConnection } from './desk-connection.js';

/** The path below the API's prefix of the page a Link header names as `rel="next"`, or null. */
function nextPage(link: string | string[] | undefined): string | null {
  const found = /<([^>]+)>;\s*rel="next"/.exec(Array.isArray(link) ? link.join(', ') : (link ?? ''));
  if (found === null) return null;
  const path = found[1]!;
  return path.startsWith(API_PATH) ? path.slice(API_PATH.length) : path;
}

/**
 * `clinic audit export` at a desk PC (interface 1.3.0, "Commands on a desk PC"): the server ran
 * the command (the person's roles, the days read in clinic time) and named the window's first
 * page of GET /audit-events (`download`); the desk PC reads it page after page as the person and
 * writes each event as the server PC writes it (fhirAuditEvent of the API's AuditEvent), into a
 * file that appears whole or not at all. Reading the trail records nothing.
 */
export async function exportAuditPages(
  connection: DeskConnection,
  download: string,
  target: string,
  replace: boolean,
): Promise<AuditExport> {
  let page: string | null = download.startsWith(API_PATH) ? download.slice(API_PATH.length) : download;
  return writeFileWhole(target, { replace }, async (file) => {
    let events = 0;
    let first: number | null = null;
    let last: number | null = null;
    while (page !== null) {
      const answer = await connection.sendAsPerson({ method: 'GET', path: page });
      if (answer.status !== 200) throw refusalOf(answer);
      const items = answer.body as AuditEvent[];
      if (items.length > 0) {
        await file.write(Buffer.from(items.map((event) => `${JSON.stringify(fhirAuditEvent(event))}\n`).join(''), 'utf8'));
        first ??= items[0]!.seq;
        last = items.at(-1)!.seq;
        events += items.length;
      }
      page = nextPage(answer.headers.link);
    }
    return { file: target, events, first_seq: first, last_seq: last };
  });
}

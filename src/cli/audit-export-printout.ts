import type { AuditExport } from '../domain/audit/export-audit-trail.js';

/** What `clinic audit export` says of the file it wrote, on the server PC and on a desk PC alike. */
export function auditExportPrintout(exported: AuditExport): string {
  return exported.events === 0
    ? `No events in that window; ${exported.file} holds none.\n`
    : `Wrote ${exported.events} events (#${exported.first_seq} to #${exported.last_seq}) as FHIR AuditEvent resources to ${exported.file}\n`;
}

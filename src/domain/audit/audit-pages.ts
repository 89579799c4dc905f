import { MAX_AUDIT_PAGE_LIMIT } from './list-audit-events.js';

/**
 * The query of GET /audit-events over an export's window [from, to) (instants, either null: no
 * bound), in pages as large as the operation gives: what a desk PC pages through to write the
 * file `clinic audit export` writes on the server PC.
 */
export function auditPagesQuery(window: { from: string | null; to: string | null }): string {
  const query = new URLSearchParams();
  if (window.from !== null) query.set('from', window.from);
  if (window.to !== null) query.set('to', window.to);
  query.set('limit', String(MAX_AUDIT_PAGE_LIMIT));
  return query.toString();
}

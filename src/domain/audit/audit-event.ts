import type { AuditEventRow } from '../../db/audit-events.js';
import type { AUDIT_EVENT_FIELDS } from '../../fields/audit-fields.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import { sha256Hex } from './sha256.js';
import type { AuditAction } from '../../audit-actions.js';

/**
 * The audit trail's events (clinic-api-1.2.md, "Audit trail"): what is recorded, and the hash
 * that chains each event to the one before it.
 */

/**
 * Who did it, as an event names them: an API key, an operating-system user at the command line, a
 * person logged in (1.3.0), a desk PC, or `clinic serve` itself.
 */
export interface Actor {
  type: 'api_key' | 'cli' | 'person' | 'device' | 'system';
  /** The key's id; the user name; the person's id. */
  id: string;
  /** The key's name; the user name; the person's name. */
  name: string;
  /** The client's IP address; the host name (also of a person at the server PC). */
  source: string;
  /** The answer's X-Request-Id; null on the command line. */
  requestId: string | null;
}

/** What a use case says it did to whose data; the trail adds who, when and the chain. */
export interface AuditRecord {
  action: AuditAction;
  /** The patient whose data it showed or changed; null for `data.*` and `setting.*`. */
  patientId: string | null;
  /** The patient's number when the result already holds it (a search's page); else it is looked up. */
  patientNumber?: string;
  /** The one record the action names; null for a list read, `data.*` and `setting.*`. */
  subjectId: string | null;
  detail?: AuditDetail | null;
}

/** An update's changed field (or setting) names (sorted, never values), or a search's text. */
export type AuditDetail =
  | { changed: string[] }
  | { q: string | null }
  // 1.3.0: what an erasure erased and a purge purged, by category.
  | { erased: Record<string, number> }
  | { purged: Record<string, number> };

/** An event as GET /audit-events shows it and as its hash covers it (src/fields/audit-fields.ts). */
export type AuditEvent = ResponseOf<typeof AUDIT_EVENT_FIELDS>;

/** The `prev_hash` of the first event. */
export const FIRST_PREV_HASH = '0'.repeat(64);

/** The subject an action names: its first word, but a search is of patients. */
export function subjectTypeOf(action: AuditAction): AuditEvent['subject_type'] {
  return (action === 'patient.search' ? 'patient' : action.slice(0, action.indexOf('.'))) as AuditEvent['subject_type'];
}

/**
 * `value` as canonical JSON: keys sorted at every depth, no whitespace, every value as
 * JSON.stringify writes it. Two programs that agree on this agree on the hash.
 */
export function canonicalJson(value: unknown): string {
  // Loops rather than map and join: the server writes one per audited answer, fifty for a search
  // page. An array's undefined is '' (as join wrote it), an object's 'undefined' (as a template did).
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let json = '[';
    for (let i = 0; i < value.length; i++) json += `${i === 0 ? '' : ','}${canonicalJson(value[i]) ?? ''}`;
    return `${json}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let json = '{';
  for (let i = 0; i < keys.length; i++) json += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${canonicalJson(object[keys[i]!])}`;
  return `${json}}`;
}

/** The hash of an event: lowercase hex SHA-256 of its canonical JSON without `hash`. */
export function eventHash(event: Omit<AuditEvent, 'hash'>): string {
  return sha256Hex(canonicalJson(event));
}

/** A stored row as the event it is (its detail parsed); a detail that is not JSON is kept as text so verification fails on it. */
export function presentAuditEvent(row: AuditEventRow): AuditEvent {
  // A row is as the program wrote it unless someone changed the file: verifyAuditTrail finds that.
  return { ...row, detail: row.detail === null ? null : parseDetail(row.detail) } as AuditEvent;
}

function parseDetail(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { unreadable: text };
  }
}

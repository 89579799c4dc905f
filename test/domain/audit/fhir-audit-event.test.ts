// src/domain/audit/fhir-audit-event.ts: an event as a FHIR R4 AuditEvent (clinic-api-1.2.md, "Audit trail"; clinic-api-1.3.md, "Scopes, audit, change feed, errors").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_ACTIONS, type AuditAction } from '../../../src/audit-actions.js';
import { FIRST_PREV_HASH, subjectTypeOf, type AuditEvent } from '../../../src/domain/audit/audit-event.js';
import { fhirAuditEvent } from '../../../src/domain/audit/fhir-audit-event.js';
import { RECORDED_BY_MARIA } from '../../helpers/audit-chain.js';
import { fhirR4Errors } from '../../helpers/fhir-r4.js';

// `clinic audit export --fhir`: each event of the trail as a FHIR R4 AuditEvent
// (clinic-api-1.2.md, "Audit trail"; clinic-api-1.3.md, "Scopes, audit, change feed, errors").

const PATIENT_ID = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const INVOICE_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/** An event of the trail as GET /audit-events gives it: a patient's invoice read at the desk, unless told otherwise. */
function anEvent(fields: Partial<AuditEvent> = {}): AuditEvent {
  const action = fields.action ?? 'invoice.read';
  return {
    seq: 7,
    at: '2026-11-30T08:00:00.000Z',
    action,
    patient_id: PATIENT_ID,
    patient_number: 'P-000042',
    subject_type: subjectTypeOf(action),
    subject_id: INVOICE_ID,
    ...RECORDED_BY_MARIA,
    prev_hash: FIRST_PREV_HASH,
    hash: 'a'.repeat(64),
    ...fields,
  } as AuditEvent;
}

/**
 * The action code the specifications give each action: 1.2.0's (`*.create` C, reads and lists R,
 * `*.update` and `invoice.void` U, `patient.search` E, `data.*` E), then 1.3.0's by verb (`read` R;
 * `create`, `pair`, `join` C; `update`, `lock`, `revoke`, `confirm`, `decline` U; `remove`, `erase`,
 * `purge` D; `send`, `export` E; `session.*` E). A credit note lowers an invoice: an update.
 */
function specifiedCode(action: AuditAction): string {
  const [subject, verb] = action.split('.') as [string, string];
  if (subject === 'session' || subject === 'data' || action === 'patient.search') return 'E';
  if (['read', 'list'].includes(verb)) return 'R';
  if (['create', 'pair', 'join'].includes(verb)) return 'C';
  if (['update', 'lock', 'revoke', 'confirm', 'decline', 'void', 'credit'].includes(verb)) return 'U';
  if (['remove', 'erase', 'purge'].includes(verb)) return 'D';
  if (['send', 'export'].includes(verb)) return 'E';
  throw new Error(`no code specified for ${action}`);
}

type Entity = {
  what?: { reference?: string; identifier?: { system: string; value: string } };
  query?: string;
  detail?: unknown;
  description?: string;
};
const entitiesOf = (resource: Record<string, unknown>) => resource.entity as Entity[];
const codesOf = (coding: unknown) => (Array.isArray(coding) ? coding : [coding]).map((c: { code: string }) => c.code);

describe('an audit event as a FHIR R4 AuditEvent', () => {
  it("codes every action the trail records as the specifications' verbs say", () => {
    for (const action of AUDIT_ACTIONS) assert.equal(fhirAuditEvent(anEvent({ action })).action, specifiedCode(action), action);
  });

  it('is a valid FHIR R4 AuditEvent for a read, a search, a backup, a login, a setting and a key', async () => {
    const events = [
      anEvent(),
      anEvent({ action: 'patient.search', subject_id: null, detail: { q: 'müller' } }),
      anEvent({ action: 'data.export', patient_id: null, patient_number: null, subject_id: null }),
      anEvent({
        action: 'session.fail',
        patient_id: null,
        patient_number: null,
        subject_id: 'f'.repeat(8) + '-0000-4000-8000-000000000000',
      }),
      anEvent({ action: 'setting.update', patient_id: null, patient_number: null, subject_id: null, detail: { changed: ['timezone'] } }),
      anEvent({ actor_type: 'api_key', actor_id: 'k-1', actor_name: 'phone system', source: '192.168.1.20', request_id: 'r-1' }),
    ];
    for (const event of events) assert.deepEqual(await fhirR4Errors(fhirAuditEvent(event)), [], event.action);
  });

  it("names the patient by reference and number, the record by its FHIR type, and carries the trail's own fields", () => {
    const resource = fhirAuditEvent(anEvent({ request_id: 'req-1' }));
    assert.equal(resource.id, 'clinic-audit-7');
    assert.equal(resource.recorded, '2026-11-30T08:00:00.000Z');
    assert.equal(resource.outcome, '0');
    const [patient, invoice, trail, ...more] = entitiesOf(resource);
    assert.deepEqual(more, []);
    assert.deepEqual(patient?.what, {
      reference: `Patient/${PATIENT_ID}`,
      identifier: { system: 'urn:clinic:patient-number', value: 'P-000042' },
      display: 'P-000042',
    });
    assert.equal(invoice?.what?.reference, `Invoice/${INVOICE_ID}`);
    assert.deepEqual(trail?.detail, [
      { type: 'seq', valueString: '7' },
      { type: 'hash', valueString: 'a'.repeat(64) },
      { type: 'prev_hash', valueString: FIRST_PREV_HASH },
      { type: 'request_id', valueString: 'req-1' },
    ]);
  });

  it("gives a search's text as its query in base64, and a patient update the fields it changed, never their values", () => {
    const search = entitiesOf(fhirAuditEvent(anEvent({ action: 'patient.search', subject_id: null, detail: { q: 'Müller' } })));
    const query = search.find((entity) => entity.query !== undefined)?.query;
    assert.equal(Buffer.from(query ?? '', 'base64').toString('utf8'), 'Müller');
    const update = entitiesOf(fhirAuditEvent(anEvent({ action: 'patient.update', subject_id: PATIENT_ID, detail: { changed: [] } })));
    assert.equal(update[0]?.description, 'changed: (nothing)', 'a patch that changed nothing says so');
    assert.equal(update.length, 2, 'the patient once, not again as the record the action names');
  });

  it('tells a login from a logout by DICOM code, and a failed login by its outcome', () => {
    const login = fhirAuditEvent(anEvent({ action: 'session.create', patient_id: null, patient_number: null, subject_id: null }));
    const logout = fhirAuditEvent(anEvent({ action: 'session.end', patient_id: null, patient_number: null, subject_id: null }));
    const failed = fhirAuditEvent(anEvent({ action: 'session.fail', patient_id: null, patient_number: null, subject_id: null }));
    assert.deepEqual(codesOf(login.type), ['110114']);
    assert.deepEqual(codesOf(login.subtype), ['110122', 'session.create']);
    assert.deepEqual(codesOf(logout.subtype), ['110123', 'session.end']);
    assert.deepEqual([login.outcome, logout.outcome, failed.outcome], ['0', '0', '4']);
  });

  it('names an API key as an application at an IP address, and the desk user as a launcher at a host name', () => {
    const [byKey] = fhirAuditEvent(anEvent({ actor_type: 'api_key', actor_id: 'k-1', actor_name: 'phone', source: '10.0.0.5' }))
      .agent as any[];
    const [atDesk] = fhirAuditEvent(anEvent()).agent as any[];
    assert.deepEqual(
      [codesOf(byKey.type.coding), byKey.who.identifier, byKey.network],
      [['110150'], { system: 'urn:clinic:api-key', value: 'k-1' }, { address: '10.0.0.5', type: '2' }],
    );
    assert.deepEqual(
      [codesOf(atDesk.type.coding), atDesk.who.identifier, atDesk.network],
      [['110151'], { system: 'urn:clinic:os-user', value: 'maria' }, { address: 'reception-pc', type: '1' }],
    );
  });
});

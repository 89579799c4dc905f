// src/domain/audit/audit-event.ts: an audit event's canonical JSON, hash and subject (clinic-api-1.2.md, "Audit trail").
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { AuditEventRow } from '../../../src/db/audit-events.js';
import { canonicalJson, eventHash, FIRST_PREV_HASH, presentAuditEvent, subjectTypeOf } from '../../../src/domain/audit/audit-event.js';
import { canonical } from '../../helpers/audit-chain.js';

// The audit trail's events and their hash (clinic-api-1.2.md, "Audit trail"): what an auditor's
// own verifier must be able to recompute from the specification's words alone.

/** A stored event of a patient's record read at the desk, its hash as the specification computes it. */
function storedEvent(fields: Partial<AuditEventRow> = {}): AuditEventRow {
  const event = {
    seq: 1,
    at: '2026-11-30T08:00:00.000Z',
    action: 'patient.update',
    patient_id: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
    patient_number: 'P-000042',
    subject_type: 'patient',
    subject_id: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b',
    actor_type: 'cli',
    actor_id: 'maria',
    actor_name: 'maria',
    source: 'reception-pc',
    request_id: null,
    detail: { changed: ['email', 'mobile'] } as Record<string, unknown> | null,
    prev_hash: FIRST_PREV_HASH,
    ...fields,
  };
  const hash = createHash('sha256').update(canonical(event), 'utf8').digest('hex');
  return { ...event, detail: event.detail === null ? null : JSON.stringify(event.detail), hash } as AuditEventRow;
}

describe('audit events: canonical JSON, hash, subject', () => {
  it('writes canonical JSON: keys sorted at every depth, no whitespace, array order kept, text as JSON.stringify writes it', () => {
    const value = { b: 1, a: { d: [3, { z: true, y: null }], c: 'Müller "Jürgen"\n' }, é: 0.5 };
    assert.equal(canonicalJson(value), '{"a":{"c":"Müller \\"Jürgen\\"\\n","d":[3,{"y":null,"z":true}]},"b":1,"é":0.5}');
    assert.equal(canonicalJson(value), canonical(value), "the program's canonical form is the specification's");
    assert.equal(canonicalJson([]), '[]');
    assert.equal(canonicalJson({}), '{}');
  });

  it("hashes an event as SHA-256 of its canonical JSON without `hash`, so a verifier of the spec's words agrees", () => {
    const { hash, ...fields } = presentAuditEvent(storedEvent());
    assert.equal(eventHash(fields), hash);
    assert.match(hash, /^[0-9a-f]{64}$/, 'lowercase hex');
    assert.equal(FIRST_PREV_HASH, '0'.repeat(64), 'the first event follows 64 zeros');
  });

  it("gives another hash when any field changes, the order of a detail's keys aside", () => {
    const { hash: _hash, ...fields } = presentAuditEvent(storedEvent());
    const original = eventHash(fields);
    assert.notEqual(eventHash({ ...fields, detail: { changed: ['email'] } }), original, 'a changed field list');
    assert.notEqual(eventHash({ ...fields, patient_number: 'P-000043' }), original, 'another patient number');
    assert.notEqual(eventHash({ ...fields, at: '2026-11-30T08:00:00.001Z' }), original, 'a millisecond later');
    const reordered = Object.fromEntries(Object.entries(fields).reverse()) as typeof fields;
    assert.equal(eventHash(reordered), original, 'the same fields in another order are the same event');
  });

  it("names the subject by the action's first word, and a search's subject is the patient", () => {
    assert.equal(subjectTypeOf('patient.search'), 'patient');
    assert.equal(subjectTypeOf('invoice.void'), 'invoice');
    assert.equal(subjectTypeOf('data.export'), 'data');
    assert.equal(subjectTypeOf('setting.update'), 'setting');
    assert.equal(subjectTypeOf('appointment.decline'), 'appointment');
  });

  it('shows a stored detail as the object it is, no detail as null, and a detail that is no JSON as text that cannot verify', () => {
    assert.deepEqual(presentAuditEvent(storedEvent()).detail, { changed: ['email', 'mobile'] });
    assert.equal(presentAuditEvent(storedEvent({ detail: null })).detail, null);
    const row = { ...storedEvent(), detail: '{"changed":["email"' };
    const shown = presentAuditEvent(row);
    assert.deepEqual(shown.detail, { unreadable: '{"changed":["email"' });
    const { hash, ...fields } = shown;
    assert.notEqual(eventHash(fields), hash, 'a damaged detail no longer hashes to what was recorded');
  });
});

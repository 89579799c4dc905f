import { PROGRAM_VERSION } from '../../version.js';
import type { AuditAction } from '../../audit-actions.js';
import type { AuditEvent } from './audit-event.js';

/**
 * An audit event as a FHIR R4 AuditEvent resource (hl7.org/fhir/R4/auditevent.html), for
 * `clinic audit export --fhir`: what a record system or an auditor's tools read. The trail's own
 * fields that FHIR has no place for (seq, the hashes) travel as the resource's id and an
 * entity detail, so an export can be matched to the trail it came from.
 */

/** The AuditEvent action code: Create, Read, Update, Execute (a search, an export, an import). */
const ACTION_CODES: Record<AuditAction, 'C' | 'R' | 'U' | 'D' | 'E'> = {
  'patient.read': 'R',
  'patient.search': 'E',
  'patient.create': 'C',
  'patient.update': 'U',
  'appointment.read': 'R',
  'appointment.create': 'C',
  'appointment.update': 'U',
  'document.list': 'R',
  'document.read': 'R',
  'document.create': 'C',
  'invoice.read': 'R',
  'invoice.create': 'C',
  'invoice.void': 'U',
  'payment.create': 'C',
  'refund.create': 'C',
  'data.export': 'E',
  'data.import': 'E',
  // 1.3.0: a doctor or service corrected, and what an invoice asks lowered by a credit note.
  'catalog.update': 'U',
  'invoice.credit': 'U',
  // 1.3.0: a clinic setting changed at the desk.
  'setting.update': 'U',
  'person.create': 'C',
  'person.update': 'U',
  'person.lock': 'U',
  'session.create': 'E',
  'session.end': 'E',
  'session.fail': 'E',
  'key.create': 'C',
  'key.revoke': 'U',
  'webhook.create': 'C',
  'webhook.remove': 'D',
  'device.pair': 'C',
  'device.join': 'C',
  'device.revoke': 'U',
  // 1.3.0: reminders read; the patient's yes or no recorded.
  'reminder.read': 'R',
  'reminder.send': 'E',
  'patient.export': 'E',
  'patient.erase': 'D',
  'patient.purge': 'D',
  'appointment.confirm': 'U',
  'appointment.decline': 'U',
};

/** FHIR's RESTful interaction of each action over the API; data.* are DICOM's Export and Import events. */
const INTERACTIONS: Record<string, string> = { C: 'create', R: 'read', U: 'update', D: 'delete', E: 'search-type' };

/** The FHIR resource type of each subject the trail names. */
const RESOURCE_TYPES: Record<string, string> = {
  patient: 'Patient',
  appointment: 'Appointment',
  document: 'DocumentReference',
  invoice: 'Invoice',
  payment: 'PaymentReconciliation',
  refund: 'PaymentReconciliation',
};

const coding = (system: string, code: string, display: string) => ({ system, code, display });

/** The event's `type` and `subtype`: a RESTful operation, or DICOM's Export/Import for a backup and a restore. */
function typeOf(event: AuditEvent): Record<string, unknown> {
  if (event.action === 'data.export' || event.action === 'data.import') {
    const exported = event.action === 'data.export';
    return {
      type: coding('http://dicom.nema.org/resources/ontology/DCM', exported ? '110106' : '110107', exported ? 'Export' : 'Import'),
      subtype: [coding('urn:clinic:audit-action', event.action, exported ? 'clinic backup' : 'clinic restore')],
    };
  }
  if (event.action.startsWith('session.')) {
    const logout = event.action === 'session.end';
    return {
      type: coding('http://dicom.nema.org/resources/ontology/DCM', '110114', 'User Authentication'),
      subtype: [
        coding('http://dicom.nema.org/resources/ontology/DCM', logout ? '110123' : '110122', logout ? 'Logout' : 'Login'),
        coding('urn:clinic:audit-action', event.action, event.action),
      ],
    };
  }
  const interaction = INTERACTIONS[ACTION_CODES[event.action] ?? 'R']!;
  return {
    type: coding('http://terminology.hl7.org/CodeSystem/audit-event-type', 'rest', 'RESTful Operation'),
    subtype: [
      coding('http://hl7.org/fhir/restful-interaction', interaction, interaction),
      coding('urn:clinic:audit-action', event.action, event.action),
    ],
  };
}

/** The identifier system of each kind of actor. */
const AGENT_SYSTEMS: Record<AuditEvent['actor_type'], string> = {
  api_key: 'urn:clinic:api-key',
  cli: 'urn:clinic:os-user',
  person: 'urn:clinic:person',
  device: 'urn:clinic:device',
  system: 'urn:clinic:system',
};

/** Who asked: the API key, or the operating system's user at the command line; from where. */
function agentOf(event: AuditEvent): Record<string, unknown> {
  const byKey = event.actor_type === 'api_key';
  return {
    type: {
      coding: [
        coding('http://dicom.nema.org/resources/ontology/DCM', byKey ? '110150' : '110151', byKey ? 'Application' : 'Application Launcher'),
      ],
    },
    who: { identifier: { system: AGENT_SYSTEMS[event.actor_type], value: event.actor_id }, display: event.actor_name },
    name: event.actor_name,
    requestor: true,
    // An IP address (type 2) from the API; the PC's host name (type 1) from the command line.
    network: { address: event.source, type: byKey ? '2' : '1' },
  };
}

/** The patient, the record the action names, and a search's text. */
function entitiesOf(event: AuditEvent): Record<string, unknown>[] {
  const entities: Record<string, unknown>[] = [];
  const chain = [
    { type: 'seq', valueString: String(event.seq) },
    { type: 'hash', valueString: event.hash },
    { type: 'prev_hash', valueString: event.prev_hash },
    ...(event.request_id === null ? [] : [{ type: 'request_id', valueString: event.request_id }]),
  ];
  if (event.patient_id !== null) {
    const detail = event.detail as { changed?: string[] } | null;
    entities.push({
      what: {
        reference: `Patient/${event.patient_id}`,
        ...(event.patient_number === null
          ? {}
          : { identifier: { system: 'urn:clinic:patient-number', value: event.patient_number }, display: event.patient_number }),
      },
      type: coding('http://terminology.hl7.org/CodeSystem/audit-entity-type', '1', 'Person'),
      role: coding('http://terminology.hl7.org/CodeSystem/object-role', '1', 'Patient'),
      ...(detail?.changed === undefined ? {} : { description: `changed: ${detail.changed.join(', ') || '(nothing)'}` }),
    });
  }
  if (event.subject_id !== null && event.subject_type !== 'patient') {
    const resourceType = RESOURCE_TYPES[event.subject_type] ?? 'Basic';
    entities.push({
      what: { reference: `${resourceType}/${event.subject_id}` },
      type: coding('http://terminology.hl7.org/CodeSystem/audit-entity-type', '2', 'System Object'),
      role: coding('http://terminology.hl7.org/CodeSystem/object-role', '4', 'Domain Resource'),
    });
  }
  if (event.subject_type === 'setting') {
    // A clinic setting has no record of its own: the entity names what was changed.
    const changed = (event.detail as { changed?: string[] } | null)?.changed ?? [];
    entities.push({
      what: { identifier: { system: 'urn:clinic:setting', value: changed.join(',') } },
      type: coding('http://terminology.hl7.org/CodeSystem/audit-entity-type', '2', 'System Object'),
      name: 'clinic settings',
      description: `changed: ${changed.join(', ') || '(nothing)'}`,
    });
  }
  const q = (event.detail as { q?: string | null } | null)?.q;
  if (event.action === 'patient.search') {
    entities.push({
      type: coding('http://terminology.hl7.org/CodeSystem/audit-entity-type', '2', 'System Object'),
      role: coding('http://terminology.hl7.org/CodeSystem/object-role', '24', 'Query'),
      query: Buffer.from(q ?? '', 'utf8').toString('base64'),
    });
  }
  // The trail's own fields, on a last entity that stands for the trail itself.
  entities.push({
    what: { identifier: { system: 'urn:clinic:audit-trail', value: String(event.seq) } },
    type: coding('http://terminology.hl7.org/CodeSystem/audit-entity-type', '4', 'Other'),
    name: 'clinic audit trail',
    detail: chain,
  });
  return entities;
}

/** One FHIR R4 AuditEvent for one event of the trail. */
export function fhirAuditEvent(event: AuditEvent): Record<string, unknown> {
  return {
    resourceType: 'AuditEvent',
    id: `clinic-audit-${event.seq}`,
    ...typeOf(event),
    action: ACTION_CODES[event.action] ?? 'E',
    recorded: event.at,
    // A failed login is a serious failure (4); everything the trail records else succeeded.
    outcome: event.action === 'session.fail' ? '4' : '0',
    agent: [agentOf(event)],
    source: {
      observer: { display: `clinic ${PROGRAM_VERSION}` },
      type: [coding('http://terminology.hl7.org/CodeSystem/security-source-type', '4', 'Application Server')],
    },
    entity: entitiesOf(event),
  };
}

/** The audit trail's vocabulary (clinic-api-1.2.md, "Audit trail"): on the ground floor, since the field descriptions, the database and the domain all name the actions. */

/** Every action an event can record, in the order of the specification's table. */
export const AUDIT_ACTIONS = [
  'patient.read',
  'patient.search',
  'patient.create',
  'patient.update',
  'appointment.read',
  'appointment.create',
  'appointment.update',
  'document.list',
  'document.read',
  'document.create',
  'invoice.read',
  'invoice.create',
  'invoice.void',
  'payment.create',
  'refund.create',
  'data.export',
  'data.import',
  'catalog.update',
  'invoice.credit',
  // Interface 1.3.0's: a clinic setting changed at the desk (no patient; `detail.changed` its name).
  'setting.update',
  // Interface 1.3.0's people and their sessions: who was added or changed, who logged in and out,
  // which login failed, which person was locked by it.
  'person.create',
  'person.update',
  'person.lock',
  'session.create',
  'session.end',
  'session.fail',
  // Interface 1.3.0's set-up by a person or the OS user: API keys issued and revoked, webhook
  // endpoints added and removed (`setting.update`, above, for modules and settings).
  'key.create',
  'key.revoke',
  'webhook.create',
  'webhook.remove',
  // Interface 1.3.0's desk PCs: paired by a person (or the OS user), joined by the device, revoked.
  'device.pair',
  'device.join',
  'device.revoke',
  // Interface 1.3.0's reminders: a list of them shown (one event per patient on it).
  'reminder.read',
  // ... and one sent by clinic serve (actor system).
  'reminder.send',
  // Interface 1.3.0's confirmations: the patient's yes or no, given by a reply (actor system) or at the desk or API.
  'appointment.confirm',
  'appointment.decline',
  // Interface 1.3.0's patient rights: the patient's copy made (by the caller), the erasure at the
  // desk (by a person), and each kept item purged after its retention (actor system).
  'patient.export',
  'patient.erase',
  'patient.purge',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The copy's `README.txt`: what each file is and in which public format it is written. */
export function exportReadme(): string {
  return `A copy of a patient's data (GDPR Art. 15 and 20)
================================================

This ZIP archive (https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT) holds every
record the clinic keeps of the patient. Text files are UTF-8; records are JSON
(https://www.rfc-editor.org/rfc/rfc8259); times are UTC in ISO 8601, amounts in the
currency named beside them.

summary.html
    One page to read in a web browser: the record, appointments, money, documents,
    reminders, who received the data and how long it is kept.

bundle.json
    The records as a FHIR R4 (4.0.1) Bundle of type "collection"
    (https://hl7.org/fhir/R4/bundle.html), for import into other medical software:
    Patient, Practitioner, Appointment, Invoice, PaymentReconciliation (a payment; a refund
    with a negative amount) and DocumentReference (its attachment's url is the document's
    path in this archive).

records/patient.json, records/appointments.json, records/invoices.json,
records/documents.json, records/reminders.json
    Every field of every record, in the shapes of the clinic's JSON API, described by its
    OpenAPI document (https://spec.openapis.org/oas/v3.1.0; served by the clinic's program at
    /openapi.json): Patient, Appointment, the invoice as GET /invoices/{id} gives it with its
    payments and refunds, DocumentItem and Reminder.

documents/<document id>/<file name>
    The original documents, byte for byte as they were stored.

access-log.json
    Who read or changed the patient's data and when: the audit trail's events about the
    patient, as GET /audit-events gives them.

recipients.json
    Who received the data: the API keys of connected programs, the webhook endpoints
    notified of changes, and the SMS gateway and e-mail server that carried reminders.

manifest.json (last)
    The size and SHA-256 (https://csrc.nist.gov/pubs/fips/180-4/upd1/final) of every other
    file: sha256sum of an extracted file must print the value given for it.
`;
}

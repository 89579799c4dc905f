import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { addDoctor } from '../../../src/domain/catalog.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { readPatientExport, type PatientExportContents } from '../../../src/domain/patient-export/export-contents.js';
import { documentArchivePath, fhirGender, patientBundle } from '../../../src/domain/patient-export/fhir-bundle.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPayment, createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { DESK_USER } from '../../helpers/use-case-scenarios.js';

// `bundle.json` of the patient's copy: a FHIR R4 Bundle of type collection (clinic-api-1.3.md,
// "The patient's copy"); its validation against FHIR R4 is test/server/patient-export.test.ts.

type Resource = Record<string, any>;

/** The resources of `bundle` of `type`, in order. */
const resourcesOf = (bundle: Resource, type: string): Resource[] =>
  (bundle.entry as Resource[]).map((entry) => entry.resource as Resource).filter((resource) => resource.resourceType === type);

/** Every path in `value` that holds an empty value, which FHIR allows nowhere. */
function emptyElements(value: unknown, path = ''): string[] {
  if (value === null || value === undefined || value === '') return [path];
  if (Array.isArray(value)) return value.length === 0 ? [path] : value.flatMap((item, i) => emptyElements(item, `${path}[${i}]`));
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? [path] : entries.flatMap(([name, inner]) => emptyElements(inner, `${path}.${name}`));
  }
  return [];
}

describe("the patient's copy as a FHIR Bundle", () => {
  const data = useTestDatabase();
  let contents: PatientExportContents;
  let doctorId: string;

  before(() => {
    const { db, dataDir } = data;
    // No phone, no address, no gender: the Patient must carry none of them, not empty ones.
    const patient = createTestPatient(db, { first_name: 'Lena', last_name: 'Huber', mobile: '+43 660 1234567', email: 'lena@example.org' });
    doctorId = addDoctor(db, { name: 'Dr. Gruber', color: 'blue' }).id;
    for (const [start, status] of [
      ['2026-03-10T09:00:00Z', 'Kontrolle'],
      ['2026-03-11T09:00:00Z', 'cancelled'],
      ['2026-03-12T09:00:00Z', 'completed'],
    ] as const) {
      bookAppointment(
        db,
        { patient_id: patient.id, start_at: start, end_at: start.replace('T09', 'T10'), resource_id: doctorId, status },
        'api',
      );
    }
    const invoice = createInvoice(db, { patient_id: patient.id, total: '80.00' });
    const paid = recordPayment(db, {
      path: { invoice_id: invoice.id },
      headers: {},
      body: buildPayment({ amount: '50.00', method: 'card' }),
    });
    performUseCase(
      REFUND_PAYMENT,
      db,
      { path: { payment_id: paid.payment.payment_id }, body: { amount: '20.00', reason: 'too much' } },
      DESK_USER,
    );
    addDocument(db, dataDir, patient.id, Buffer.from('%PDF scan'));
    contents = readPatientExport(db, patient.id, '2026-11-30T10:00:00.000Z');
  });

  it('is a collection stamped when the copy was made, each entry named urn:uuid:<id> and carrying no id of its own', () => {
    const bundle = patientBundle(contents);
    assert.deepEqual([bundle.resourceType, bundle.type, bundle.timestamp], ['Bundle', 'collection', '2026-11-30T10:00:00.000Z']);
    const entries = bundle.entry as Resource[];
    assert.deepEqual(
      entries.map((entry) => entry.resource.resourceType),
      [
        'Patient',
        'Practitioner',
        'Appointment',
        'Appointment',
        'Appointment',
        'Invoice',
        'PaymentReconciliation',
        'PaymentReconciliation',
        'DocumentReference',
      ],
    );
    assert.equal(entries[0]!.fullUrl, `urn:uuid:${contents.patient.id}`);
    assert.equal(entries[1]!.fullUrl, `urn:uuid:${doctorId}`);
    for (const entry of entries) {
      assert.match(entry.fullUrl, /^urn:uuid:[0-9a-f-]{36}$/);
      assert.equal('id' in entry.resource, false, entry.fullUrl);
    }
    assert.deepEqual(emptyElements(bundle), [], 'FHIR allows no empty element');
  });

  it('gives the Patient only what is stored: no phone, address or gender the clinic does not have', () => {
    const [patient] = resourcesOf(patientBundle(contents), 'Patient');
    assert.deepEqual(patient!.telecom, [
      { system: 'phone', value: '+43 660 1234567', use: 'mobile' },
      { system: 'email', value: 'lena@example.org' },
    ]);
    assert.deepEqual(
      ['address', 'gender', 'birthDate'].filter((name) => name in patient!),
      [],
    );
    assert.deepEqual(patient!.name, [{ family: 'Huber', given: ['Lena'] }]);
  });

  it("gives each appointment FHIR's status (a free string is booked), the patient's answer and the doctor, when the copy names the doctor", () => {
    const copy = structuredClone(contents);
    copy.appointments[0]!.patient_declined_at = '2026-03-01T10:00:00.000Z';
    copy.appointments[2]!.patient_confirmed_at = '2026-03-01T10:00:00.000Z';
    const appointments = resourcesOf(patientBundle(copy), 'Appointment');
    assert.deepEqual(
      appointments.map((appointment) => [appointment.status, appointment.participant.map((p: Resource) => [p.actor.reference, p.status])]),
      [
        [
          'booked',
          [
            [`urn:uuid:${copy.patient.id}`, 'declined'],
            [`urn:uuid:${doctorId}`, 'accepted'],
          ],
        ],
        [
          'cancelled',
          [
            [`urn:uuid:${copy.patient.id}`, 'needs-action'],
            [`urn:uuid:${doctorId}`, 'accepted'],
          ],
        ],
        [
          'fulfilled',
          [
            [`urn:uuid:${copy.patient.id}`, 'accepted'],
            [`urn:uuid:${doctorId}`, 'accepted'],
          ],
        ],
      ],
    );
    // A doctor the copy holds no Practitioner of is referred to by nothing: every reference resolves.
    const withoutDoctors = resourcesOf(patientBundle({ ...copy, doctors: [] }), 'Appointment');
    assert.deepEqual(
      withoutDoctors.map((appointment) => appointment.participant.length),
      [1, 1, 1],
    );
  });

  it('gives a refund as a PaymentReconciliation of its invoice with a negative amount, a payment with a positive one', () => {
    const bundle = patientBundle(contents);
    const [invoice] = resourcesOf(bundle, 'Invoice');
    assert.deepEqual([invoice!.status, invoice!.totalGross], ['issued', { value: 80, currency: 'EUR' }]);
    const invoiceUrn = `urn:uuid:${contents.invoices[0]!.id}`;
    assert.deepEqual(
      resourcesOf(bundle, 'PaymentReconciliation').map((r) => [
        r.paymentAmount.value,
        r.disposition,
        r.detail[0].type.text,
        r.detail[0].request.reference,
      ]),
      [
        [50, 'card', 'payment', invoiceUrn],
        [-20, 'card', 'refund', invoiceUrn],
      ],
    );
  });
});

describe('fhirGender', () => {
  it("reads a stored gender in any case as FHIR's, and gives none for anything else", () => {
    const cases: [unknown, string | undefined][] = [
      ['male', 'male'],
      [' M ', 'male'],
      ['Female', 'female'],
      ['f', 'female'],
      ['W', 'female'],
      ['other', 'other'],
      ['d', 'other'],
      ['X', 'other'],
      ['unknown', 'unknown'],
      ['divers', undefined],
      ['', undefined],
      [null, undefined],
      [1, undefined],
    ];
    for (const [stored, expected] of cases) assert.equal(fhirGender(stored), expected, JSON.stringify(stored));
  });
});

describe('documentArchivePath', () => {
  it('keeps a document inside its folder of the archive whatever its stored name, and readable on Windows', () => {
    const path = (filename: string) => documentArchivePath({ id: 'd1', filename });
    assert.equal(path('Befund März.pdf'), 'documents/d1/Befund März.pdf');
    assert.equal(path('../../etc/passwd'), 'documents/d1/.._.._etc_passwd');
    assert.equal(path('a\\b:c*d?e"f<g>h|i\u0007.pdf'), 'documents/d1/a_b_c_d_e_f_g_h_i_.pdf');
    for (const name of ['', '.', '..']) assert.equal(path(name), 'documents/d1/document', JSON.stringify(name));
  });
});

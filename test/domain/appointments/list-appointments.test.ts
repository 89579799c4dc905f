import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { LIST_APPOINTMENTS, READ_APPOINTMENT } from '../../../src/domain/appointments/list-appointments.js';
import { addDoctor } from '../../../src/domain/catalog.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { createTestPatient, insertBlockedTime } from '../../helpers/builders.js';
import { describeScenarios, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * READ_APPOINTMENT (GET /appointments/{appointment_id}, `clinic appointment show`) and
 * LIST_APPOINTMENTS (GET /appointments, `clinic appointment list`): what each answers and
 * records. Windows, filters and pages on the wire: test/server/routes/appointments.test.ts; the
 * actor each front end records: test/server/routes/audit.test.ts and test/cli/commands/audit.test.ts.
 */

const DAY = '2031-03-03';

/** Ada's two appointments (the second with Dr. Grey) and Bob's one with Dr. Grey on DAY, and a doctor's blocked time of no patient (as releases before 1.1.0 stored one). */
interface Given {
  ada: string;
  bob: string;
  adasFirst: string;
  adasSecond: string;
  doctor: string;
  blocked: string;
}

const aDay = (db: Db): Given => {
  setClinicTimeZone(db, 'UTC');
  const ada = createTestPatient(db, { first_name: 'Ada' }).id;
  const bob = createTestPatient(db, { first_name: 'Bob' }).id;
  const doctor = addDoctor(db, { name: 'Dr. Grey', color: '#123456' }).id;
  const book = (patientId: string, hour: string, extra = {}) =>
    bookAppointment(db, { patient_id: patientId, start_at: `${DAY}T${hour}:00Z`, end_at: `${DAY}T${hour}:30Z`, ...extra }, 'api').id;
  const adasFirst = book(ada, '09');
  const adasSecond = book(ada, '10', { resource_id: doctor });
  book(bob, '11', { resource_id: doctor });
  const blocked = insertBlockedTime(db, adasFirst);
  return { ada, bob, adasFirst, adasSecond, doctor, blocked };
};

const readScenarios: Scenario<Given>[] = [
  {
    title: "answers the appointment and records one appointment.read on its patient's record",
    given: aDay,
    request: (given) => ({ path: { appointment_id: given.adasFirst } }),
    expect: (given) => ({
      result: { id: given.adasFirst, patient_id: given.ada },
      audit: [
        { action: 'appointment.read', patient_id: given.ada, subject_type: 'appointment', subject_id: given.adasFirst, detail: null },
      ],
      changes: [],
    }),
  },
  {
    title: 'records nothing for a blocked time of no patient',
    given: aDay,
    request: (given) => ({ path: { appointment_id: given.blocked } }),
    expect: (given) => ({ result: { id: given.blocked, patient_id: null }, audit: [], changes: [] }),
  },
  {
    title: 'refuses an unknown appointment (404 APPOINTMENT_NOT_FOUND)',
    given: aDay,
    request: () => ({ path: { appointment_id: randomUUID() } }),
    expect: () => ({ refused: 'APPOINTMENT_NOT_FOUND', status: 404 }),
  },
];

const listScenarios: Scenario<Given>[] = [
  {
    title: 'lists the day and records one appointment.read per distinct patient on it, none for the blocked time',
    given: aDay,
    request: () => ({ query: { from: DAY, to: DAY } }),
    expect: (given) => ({
      result: {},
      audit: [
        { action: 'appointment.read', patient_id: given.ada, subject_type: 'appointment', subject_id: null, detail: null },
        { action: 'appointment.read', patient_id: given.bob, subject_type: 'appointment', subject_id: null, detail: null },
      ],
      changes: [],
    }),
  },
  {
    title: 'records only the patients on the page returned',
    given: aDay,
    request: () => ({ query: { from: DAY, to: DAY, limit: '2' } }),
    expect: (given) => ({ result: {}, audit: [{ action: 'appointment.read', patient_id: given.ada }], changes: [] }),
  },
  {
    title: "lists one patient's appointments with one doctor, and records that patient's read",
    given: aDay,
    request: (given) => ({ query: { from: DAY, to: DAY, resource_id: given.doctor, patient_id: given.ada } }),
    expect: (given) => ({
      result: { items: [{ id: given.adasSecond, resource_id: given.doctor }] },
      audit: [{ action: 'appointment.read', patient_id: given.ada }],
      changes: [],
    }),
  },
  {
    title: 'lists only the statuses asked for, and records nothing where none has them',
    given: aDay,
    request: () => ({ query: { from: DAY, to: DAY, status: 'arrived,no_show' } }),
    expect: () => ({ result: { items: [] }, audit: [], changes: [] }),
  },
  {
    title: 'records nothing for an empty day',
    given: aDay,
    request: () => ({ query: { from: '2031-03-04', to: '2031-03-04' } }),
    expect: () => ({ result: { items: [] }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a window that ends before it starts (422 at to)',
    given: aDay,
    request: () => ({ query: { from: DAY, to: '2031-03-01' } }),
    expect: () => ({ invalid: ['query.to'] }),
  },
];

describeScenarios('READ_APPOINTMENT', READ_APPOINTMENT, readScenarios);
describeScenarios('LIST_APPOINTMENTS', LIST_APPOINTMENTS, listScenarios);

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/open-database.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { readAppointment } from '../../src/domain/appointments/list-appointments.js';
import {
  ADD_DOCTOR,
  ADD_SERVICE,
  addDoctor,
  addService,
  EDIT_DOCTOR,
  EDIT_SERVICE,
  LIST_SERVICES,
  REINSTATE_DOCTOR,
  REINSTATE_SERVICE,
  RETIRE_DOCTOR,
  RETIRE_SERVICE,
} from '../../src/domain/catalog.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { createTestPatient } from '../helpers/builders.js';
import { refusesNonAdmin } from '../helpers/admin-only.js';
import { describeScenarios, DESK_USER, type Outcome, type Scenario } from '../helpers/use-case-scenarios.js';

/**
 * The catalog (`clinic doctor|service add|edit|retire|reinstate`), rule by rule: names the desk
 * compares as people do, colours a calendar can show, corrections recorded as catalog.update with
 * the fields changed. The desk's printouts: test/cli/commands/catalog.test.ts; a retired doctor
 * or service in bookings: the appointment tables (test/domain/appointments/).
 */

/** Dr. Anna Berger and the service Kontrolle, added first. */
interface Given {
  doctorId: string;
  serviceId: string;
}

const aCatalog =
  (before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    const given = {
      doctorId: addDoctor(db, { name: 'Dr. Anna Berger', color: '#123456' }).id,
      serviceId: addService(db, { name: 'Kontrolle', duration_min: 30, price: '50.00', color: 'blue' }).id,
    };
    before(db, given);
    return given;
  };

const body = (values: Record<string, unknown>) => () => ({ body: values });
const doctorPatch = (values: Record<string, unknown>) => (given: Given) => ({ path: { doctor_id: given.doctorId }, body: values });
const servicePatch = (values: Record<string, unknown>) => (given: Given) => ({ path: { service_id: given.serviceId }, body: values });

/** Added: the item's fields; adding records nothing (no patient's data, no correction). */
const added = (result: Record<string, unknown>): Outcome => ({ result, audit: [], changes: [] });

/** Corrected: the item's fields and the fields changed, recorded once as catalog.update. */
const corrected =
  (subject: keyof Given, item: Record<string, unknown>, changed: string[]) =>
  (given: Given): Outcome => ({
    result: { item, changed },
    audit: [{ action: 'catalog.update', patient_id: null, subject_type: 'catalog', subject_id: given[subject], detail: { changed } }],
    changes: [],
  });

const doctors: Scenario<Given>[] = [
  {
    title: 'adds a doctor, bookable, with a colour name stored in lower case',
    given: aCatalog(),
    request: body({ name: 'Dr. Bernd Huber', color: 'Green' }),
    expect: () => added({ name: 'Dr. Bernd Huber', color: 'green', retired_at: null }),
  },
  {
    title: 'refuses the name of an active doctor, compared without case, accents and spacing (409 DOCTOR_NAME_TAKEN)',
    given: aCatalog(),
    request: body({ name: '  dr. ánna   berger ', color: '#fff' }),
    expect: () => ({ refused: 'DOCTOR_NAME_TAKEN', status: 409, message: /Dr\. Anna Berger/ }),
  },
  {
    title: 'adds a second doctor of that name when asked to',
    given: aCatalog(),
    request: body({ name: 'Dr. Anna Berger', color: '#fff', allow_duplicate: true }),
    expect: () => added({ name: 'Dr. Anna Berger' }),
  },
  {
    title: 'takes the name of a retired doctor',
    given: aCatalog((db, given) => void performUseCase(RETIRE_DOCTOR, db, { path: { doctor_id: given.doctorId } }, DESK_USER)),
    request: body({ name: 'Dr. Anna Berger', color: '#fff' }),
    expect: () => added({ name: 'Dr. Anna Berger', retired_at: null }),
  },
  {
    title: 'refuses a colour a calendar cannot show (value_error)',
    given: aCatalog(),
    request: body({ name: 'Dr. Bernd Huber', color: '#12345' }),
    expect: () => ({ invalid: ['body.color'], types: ['value_error'] }),
  },
];
describeScenarios('ADD_DOCTOR', ADD_DOCTOR, doctors);

const doctorEdits: Scenario<Given>[] = [
  {
    title: 'corrects the name and colour, naming both changed',
    given: aCatalog(),
    request: doctorPatch({ name: 'Dr. Anna Berger-Huber', color: 'RED' }),
    expect: corrected('doctorId', { name: 'Dr. Anna Berger-Huber', color: 'red' }, ['color', 'name']),
  },
  {
    title: "takes a change of case of the doctor's own name as no new name",
    given: aCatalog(),
    request: doctorPatch({ name: 'DR. ANNA BERGER' }),
    expect: corrected('doctorId', { name: 'DR. ANNA BERGER' }, ['name']),
  },
  {
    title: 'takes a change of case of its own name even where a second doctor of that name was allowed',
    given: aCatalog((db) => void addDoctor(db, { name: 'Dr. Anna Berger', color: '#fff', allow_duplicate: true })),
    request: doctorPatch({ name: 'Dr. ANNA Berger' }),
    expect: corrected('doctorId', { name: 'Dr. ANNA Berger' }, ['name']),
  },
  {
    title: 'records an edit to the same values with nothing changed',
    given: aCatalog(),
    request: doctorPatch({ color: '#123456' }),
    expect: corrected('doctorId', { color: '#123456' }, []),
  },
  {
    title: "refuses another active doctor's name (409 DOCTOR_NAME_TAKEN)",
    given: aCatalog((db) => void addDoctor(db, { name: 'Dr. Bernd Huber', color: '#fff' })),
    request: doctorPatch({ name: 'dr. bernd huber' }),
    expect: () => ({ refused: 'DOCTOR_NAME_TAKEN', status: 409 }),
  },
  {
    title: 'refuses an unknown doctor (422 DOCTOR_NOT_FOUND)',
    given: aCatalog(),
    request: () => ({ path: { doctor_id: randomUUID() }, body: { name: 'x' } }),
    expect: () => ({ refused: 'DOCTOR_NOT_FOUND', status: 422 }),
  },
];
describeScenarios('EDIT_DOCTOR', EDIT_DOCTOR, doctorEdits);

const retiring: Scenario<Given>[] = [
  {
    title: 'retires a doctor, recording retired_at changed',
    given: aCatalog(),
    request: (given) => ({ path: { doctor_id: given.doctorId } }),
    expect: corrected('doctorId', { retired_at: /^\d{4}-/ }, ['retired_at']),
  },
  {
    title: 'retires a retired doctor as no change',
    given: aCatalog((db, given) => void performUseCase(RETIRE_DOCTOR, db, { path: { doctor_id: given.doctorId } }, DESK_USER)),
    request: (given) => ({ path: { doctor_id: given.doctorId } }),
    expect: corrected('doctorId', { retired_at: /^\d{4}-/ }, []),
  },
];
describeScenarios('RETIRE_DOCTOR', RETIRE_DOCTOR, retiring);

const reinstating: Scenario<Given>[] = [
  {
    title: 'reinstates a retired doctor, bookable again',
    given: aCatalog((db, given) => void performUseCase(RETIRE_DOCTOR, db, { path: { doctor_id: given.doctorId } }, DESK_USER)),
    request: (given) => ({ path: { doctor_id: given.doctorId } }),
    expect: corrected('doctorId', { retired_at: null }, ['retired_at']),
  },
];
describeScenarios('REINSTATE_DOCTOR', REINSTATE_DOCTOR, reinstating);

const services: Scenario<Given>[] = [
  {
    title: 'adds a service with its length, price and colour',
    given: aCatalog(),
    request: body({ name: 'Mundhygiene', duration_min: 45, price: '80.50', color: '#00FF00' }),
    expect: () => added({ name: 'Mundhygiene', duration_min: 45, price: 80.5, color: '#00FF00' }),
  },
  {
    title: 'takes the name of a retired service',
    given: aCatalog((db, given) => void performUseCase(RETIRE_SERVICE, db, { path: { service_id: given.serviceId } }, DESK_USER)),
    request: body({ name: 'Kontrolle', duration_min: 10, price: 1, color: 'red' }),
    expect: () => added({ name: 'Kontrolle', retired_at: null }),
  },
  {
    title: 'refuses the name of an active service, as people compare names (409 SERVICE_NAME_TAKEN)',
    given: aCatalog(),
    request: body({ name: 'KONTROLLE', duration_min: 10, price: 1, color: 'red' }),
    expect: () => ({ refused: 'SERVICE_NAME_TAKEN', status: 409, message: /Kontrolle/ }),
  },
];
describeScenarios('ADD_SERVICE', ADD_SERVICE, services);

const serviceEdits: Scenario<Given>[] = [
  {
    title: 'corrects the length and price, naming each changed',
    given: aCatalog(),
    request: servicePatch({ duration_min: 40, price: '55.00' }),
    expect: corrected('serviceId', { duration_min: 40, price: 55 }, ['duration_min', 'price']),
  },
  {
    title: 'refuses an unknown service (422 SERVICE_NOT_FOUND)',
    given: aCatalog(),
    request: () => ({ path: { service_id: randomUUID() }, body: { price: 1 } }),
    expect: () => ({ refused: 'SERVICE_NOT_FOUND', status: 422 }),
  },
];
describeScenarios('EDIT_SERVICE', EDIT_SERVICE, serviceEdits);

/** The service retired, as the desk's `service retire` leaves it. */
const retireService = (db: Db, given: Given) =>
  void performUseCase(RETIRE_SERVICE, db, { path: { service_id: given.serviceId } }, DESK_USER);

const serviceRef = (given: Given) => ({ path: { service_id: given.serviceId } });

/** Whether GET /services lists the service, and whether it does with include_retired. */
const listedServices = (db: Db, serviceId: string) =>
  [false, true].map((includeRetired) =>
    performUseCase(LIST_SERVICES, db, { query: { include_retired: includeRetired } }, DESK_USER).some(
      (service) => service.id === serviceId,
    ),
  );

/** A correction of the service, and what the lists then offer: [bookable, listed with the retired]. */
const servicesListed =
  (item: Record<string, unknown>, changed: string[], listed: [boolean, boolean]) =>
  (given: Given): Outcome => ({
    ...corrected('serviceId', item, changed)(given),
    then: (db) => assert.deepEqual(listedServices(db, given.serviceId), listed, '[listed, listed with the retired]'),
  });

/**
 * RETIRE_SERVICE and REINSTATE_SERVICE (`clinic service retire|reinstate`, clinic-api-1.3.md,
 * "Doctors and services"): a service no longer offered keeps its id and its appointments. A
 * retired service in bookings: test/domain/appointments/book-appointment.test.ts and
 * update-appointment.test.ts; over the API, test/server/retired-catalog.test.ts.
 */
const retiringServices: Scenario<Given>[] = [
  {
    title: 'retires a service: left out of the list, listed with the retired, recording retired_at changed',
    given: aCatalog(),
    request: serviceRef,
    expect: servicesListed({ name: 'Kontrolle', retired_at: /^\d{4}-\d\d-\d\dT/ }, ['retired_at'], [false, true]),
  },
  {
    title: 'retires a retired service as no change',
    given: aCatalog(retireService),
    request: serviceRef,
    expect: servicesListed({ retired_at: /^\d{4}-/ }, [], [false, true]),
  },
  {
    title: 'keeps the service on the appointments that name it',
    given: aCatalog((db, given) => {
      const patientId = createTestPatient(db).id;
      bookAppointment(
        db,
        { patient_id: patientId, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30Z', service_id: given.serviceId },
        'cli',
      );
    }),
    request: serviceRef,
    expect: (given) => ({
      ...corrected('serviceId', { retired_at: /^\d{4}-/ }, ['retired_at'])(given),
      then: (db) => {
        const { id } = db.prepare('SELECT id FROM appointments').get() as { id: string };
        const appointment = readAppointment(db, id);
        assert.deepEqual(
          [appointment.service_id, appointment.service_ids, appointment.service_name],
          [given.serviceId, [given.serviceId], 'Kontrolle'],
        );
      },
    }),
  },
  {
    title: 'refuses an unknown service (422 SERVICE_NOT_FOUND)',
    given: aCatalog(),
    request: () => ({ path: { service_id: randomUUID() } }),
    expect: () => ({ refused: 'SERVICE_NOT_FOUND', status: 422 }),
  },
  {
    title: "refuses a doctor's id: it names no service (422 SERVICE_NOT_FOUND)",
    given: aCatalog(),
    request: (given) => ({ path: { service_id: given.doctorId } }),
    expect: () => ({ refused: 'SERVICE_NOT_FOUND', status: 422 }),
  },
  {
    title: 'refuses a malformed id (uuid_parsing)',
    given: aCatalog(),
    request: () => ({ path: { service_id: 'Kontrolle' } }),
    expect: () => ({ invalid: ['path.service_id'], types: ['uuid_parsing'] }),
  },
  {
    title: 'refuses a person at reception: only an admin changes the catalog (403 ROLE_FORBIDDEN)',
    given: aCatalog(),
    request: serviceRef,
    caller: { ...DESK_USER, roles: ['reception', 'practitioner', 'billing', 'scheduler'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];
describeScenarios('RETIRE_SERVICE', RETIRE_SERVICE, retiringServices);

/** REINSTATE_SERVICE (`clinic service reinstate`): a retired service bookable again, as above. */
const reinstatingServices: Scenario<Given>[] = [
  {
    title: 'reinstates a retired service: listed and bookable again, recording retired_at changed',
    given: aCatalog(retireService),
    request: serviceRef,
    expect: servicesListed({ name: 'Kontrolle', retired_at: null }, ['retired_at'], [true, true]),
  },
  {
    title: 'reinstates an active service as no change',
    given: aCatalog(),
    request: serviceRef,
    expect: servicesListed({ retired_at: null }, [], [true, true]),
  },
  {
    title: 'refuses an unknown service (422 SERVICE_NOT_FOUND)',
    given: aCatalog(),
    request: () => ({ path: { service_id: randomUUID() } }),
    expect: () => ({ refused: 'SERVICE_NOT_FOUND', status: 422 }),
  },
  refusesNonAdmin(aCatalog(retireService), serviceRef),
];
describeScenarios('REINSTATE_SERVICE', REINSTATE_SERVICE, reinstatingServices);

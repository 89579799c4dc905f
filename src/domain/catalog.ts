import type { Db } from '../db/open-database.js';
import { insertDoctor, listDoctorRows, type DoctorRow } from '../db/doctors.js';
import { insertService, listServiceRows, type ServiceRow } from '../db/services.js';
import { DOCTOR_FIELDS, DOCTOR_INPUT_FIELDS, SERVICE_INPUT_FIELDS, type SERVICE_FIELDS } from '../fields/catalog-fields.js';
import type { ResponseOf } from '../fields/field-spec.js';
import { presentColumns } from '../fields/columns.js';
import { newId, nowIso } from './clock.js';
import { centsToNumber } from './validation/decimal.js';
import { fieldsValidator } from './validation/validate.js';
import { defineUseCase } from './use-case.js';

/** Doctor of spec 2.7. */
export type Doctor = ResponseOf<typeof DOCTOR_FIELDS>;

/** Service of spec 2.6; `price` in the clinic currency. */
export type Service = ResponseOf<typeof SERVICE_FIELDS>;

const doctorInput = fieldsValidator(DOCTOR_INPUT_FIELDS, 'body');
const serviceInput = fieldsValidator(SERVICE_INPUT_FIELDS, 'body');
const NO_TIME_FIELDS = { timeZone: 'UTC' };

/** The API shape of a doctor row. */
export function presentDoctor(row: DoctorRow): Doctor {
  return presentColumns<Doctor>(DOCTOR_FIELDS, row);
}

/** The API shape of a service row. */
export function presentService(row: ServiceRow): Service {
  return { id: row.id, name: row.name, duration_min: row.duration_min, price: centsToNumber(row.price_cents), color: row.color };
}

/** Adds a doctor (a bookable calendar resource). */
export function addDoctor(db: Db, input: unknown): Doctor {
  const values = doctorInput.parse(input, NO_TIME_FIELDS);
  const row: DoctorRow = { id: newId(), name: values.name, color: values.color, created_at: nowIso() };
  insertDoctor(db, row);
  return presentDoctor(row);
}

/** Every doctor, in the order they were added. */
export function listDoctors(db: Db): Doctor[] {
  return listDoctorRows(db).map(presentDoctor);
}

/** GET /doctors, `clinic doctor list`. */
export const LIST_DOCTORS = defineUseCase({
  summary: 'List doctors',
  input: {},
  refusals: [],
  access: 'read',
  run: (db): Doctor[] => listDoctors(db),
});

/** Adds a bookable service with its default duration and price. */
export function addService(db: Db, input: unknown): Service {
  const values = serviceInput.parse(input, NO_TIME_FIELDS);
  const row: ServiceRow = {
    id: newId(),
    name: values.name,
    duration_min: values.duration_min,
    price_cents: values.price,
    color: values.color,
    created_at: nowIso(),
  };
  insertService(db, row);
  return presentService(row);
}

/** Every service, in the order they were added. */
export function listServices(db: Db): Service[] {
  return listServiceRows(db).map(presentService);
}

/** GET /services, `clinic service list`. */
export const LIST_SERVICES = defineUseCase({
  summary: 'List services',
  input: {},
  refusals: [],
  access: 'read',
  run: (db): Service[] => listServices(db),
});

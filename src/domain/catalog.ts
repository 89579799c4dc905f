import type { Db } from '../db/open-database.js';
import { insertDoctor, listDoctorRows, type DoctorRow } from '../db/doctors.js';
import { insertService, listServiceRows, type ServiceRow } from '../db/services.js';
import { DOCTOR_FIELDS, DOCTOR_INPUT_FIELDS, SERVICE_INPUT_FIELDS, type SERVICE_FIELDS } from '../fields/catalog-fields.js';
import type { ResponseOf } from '../fields/field-spec.js';
import { presentColumns } from '../fields/columns.js';
import { newId, nowIso } from './clock.js';
import { centsToNumber } from './validation/decimal.js';
import { defineUseCase, performUseCase } from './use-case.js';

/** Doctor of spec 2.7. */
export type Doctor = ResponseOf<typeof DOCTOR_FIELDS>;

/** Service of spec 2.6; `price` in the clinic currency. */
export type Service = ResponseOf<typeof SERVICE_FIELDS>;

/** The API shape of a doctor row. */
export function presentDoctor(row: DoctorRow): Doctor {
  return presentColumns<Doctor>(DOCTOR_FIELDS, row);
}

/** The API shape of a service row. */
export function presentService(row: ServiceRow): Service {
  return { id: row.id, name: row.name, duration_min: row.duration_min, price: centsToNumber(row.price_cents), color: row.color };
}

/** `clinic doctor add`: a doctor, a bookable calendar resource. */
export const ADD_DOCTOR = defineUseCase({
  summary: 'Add a doctor',
  input: { body: DOCTOR_INPUT_FIELDS },
  refusals: [],
  access: 'write',
  run(db, { body }): Doctor {
    const row: DoctorRow = { id: newId(), name: body.name, color: body.color, created_at: nowIso() };
    insertDoctor(db, row);
    return presentDoctor(row);
  },
});

/** ADD_DOCTOR on a connection of its own. */
export function addDoctor(db: Db, input: unknown): Doctor {
  return performUseCase(ADD_DOCTOR, db, { body: input }, { source: 'cli', actor: null });
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

/** `clinic service add`: a bookable service with its default duration and price. */
export const ADD_SERVICE = defineUseCase({
  summary: 'Add a service',
  input: { body: SERVICE_INPUT_FIELDS },
  refusals: [],
  access: 'write',
  run(db, { body }): Service {
    const row: ServiceRow = {
      id: newId(),
      name: body.name,
      duration_min: body.duration_min,
      price_cents: body.price,
      color: body.color,
      created_at: nowIso(),
    };
    insertService(db, row);
    return presentService(row);
  },
});

/** ADD_SERVICE on a connection of its own. */
export function addService(db: Db, input: unknown): Service {
  return performUseCase(ADD_SERVICE, db, { body: input }, { source: 'cli', actor: null });
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

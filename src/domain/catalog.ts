import type { Db } from '../db/open-database.js';
import {
  findDoctor,
  insertDoctor,
  listActiveDoctorRows,
  listDoctorRows,
  setDoctorRetired,
  updateDoctor,
  type DoctorRow,
} from '../db/doctors.js';
import {
  findService,
  insertService,
  listActiveServiceRows,
  listServiceRows,
  setServiceRetired,
  updateService,
  type ServiceRow,
} from '../db/services.js';
import {
  CATALOG_QUERY_FIELDS,
  COLOR_NAMES,
  DOCTOR_INPUT_FIELDS,
  DOCTOR_PATCH_FIELDS,
  DOCTOR_PATH_FIELDS,
  SERVICE_INPUT_FIELDS,
  SERVICE_PATCH_FIELDS,
  SERVICE_PATH_FIELDS,
  type DOCTOR_FIELDS,
  type SERVICE_FIELDS,
} from '../fields/catalog-fields.js';
import type { ResponseOf } from '../fields/field-spec.js';
import { foldName } from '../fields/folded-text.js';
import type { AuditRecord } from './audit/audit-event.js';
import { newId, nowIso } from './clock.js';
import { errors, type AppError, type ValidationIssue } from '../errors.js';
import { defineUseCase, performUseCase, type RawRequest } from './use-case.js';
import { centsToNumber } from './validation/decimal.js';
import { problems } from './validation/problems.js';
import { isPlainObject } from './validation/structs.js';
import { issue } from './validation/validate.js';
import { ROLE_ROWS } from './people/roles.js';

/** Doctor of spec 2.7, with `retired_at` (1.3.0). */
export type Doctor = ResponseOf<typeof DOCTOR_FIELDS>;

/** Service of spec 2.6, with `retired_at` (1.3.0); `price` in the clinic currency. */
export type Service = ResponseOf<typeof SERVICE_FIELDS>;

/** The API shape of a doctor row. */
export function presentDoctor(row: DoctorRow): Doctor {
  return { id: row.id, name: row.name, color: row.color, retired_at: row.retired_at };
}

/** The API shape of a service row. */
export function presentService(row: ServiceRow): Service {
  return {
    id: row.id,
    name: row.name,
    duration_min: row.duration_min,
    price: centsToNumber(row.price_cents),
    color: row.color,
    retired_at: row.retired_at,
  };
}

/** What a correction of a doctor or service answers: it as it now stands, and the fields whose stored value changed. */
export interface CatalogCorrection<T> {
  item: T;
  /** Sorted field names; empty when nothing changed (an edit to the same values, retiring the retired). */
  changed: string[];
}

/** A correction of a doctor or service, as the audit trail records it: no patient's data, the fields changed (1.3.0). */
const catalogRecords = ({ item, changed }: CatalogCorrection<{ id: string }>): AuditRecord[] => [
  { action: 'catalog.update', patientId: null, subjectId: item.id, detail: { changed } },
];

/** The id the refusals' examples name. */
const EXAMPLE_ID = '3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e';

/** A colour written as hex: `#RGB` or `#RRGGBB`, in any case. */
const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/**
 * A colour must be one a calendar can show (1.3.0): hex, or one of COLOR_NAMES in any case; else
 * 422 value_error at ["body","color"]. A colour the field's own limits refused is not said twice.
 */
function colorIssues(body: unknown, fieldIssues: readonly ValidationIssue[]): ValidationIssue[] {
  if (!isPlainObject(body) || typeof body.color !== 'string') return [];
  if (fieldIssues.some((found) => found.loc[0] === 'body' && found.loc[1] === 'color')) return [];
  if (HEX_COLOR.test(body.color) || (COLOR_NAMES as readonly string[]).includes(body.color.toLowerCase())) return [];
  const rule = `a colour is #RGB or #RRGGBB, or one of ${COLOR_NAMES.join(', ')}`;
  return [issue(['body', 'color'], problems.valueError(rule), body.color)];
}

/** A valid colour as stored: a name in lower case (`Blue` → `blue`), hex as written. */
const storedColor = (color: string) => (HEX_COLOR.test(color) ? color : color.toLowerCase());

/**
 * The active row other than `exceptId` whose name is `name` as the desk compares names (foldName:
 * case, accents and spacing aside), or undefined. The few rows of the list are folded here:
 * SQLite cannot fold as foldName does, and the check runs in the writer's IMMEDIATE transaction,
 * so no other can take the name between it and the write.
 */
function holderOf<Row extends { id: string; name: string }>(
  active: readonly Row[],
  name: string,
  exceptId: string | null,
): Row | undefined {
  const wanted = foldName(name);
  return active.find((row) => row.id !== exceptId && foldName(row.name) === wanted);
}

/** The names of the fields whose value differs between `before` and `after`, sorted. */
function changedFields<T extends object>(before: T, after: T): string[] {
  return (Object.keys(after) as (keyof T & string)[]).filter((name) => before[name] !== after[name]).sort();
}

/** `clinic doctor add`: a doctor, a bookable calendar resource; a name an active doctor has is 409 DOCTOR_NAME_TAKEN. */
export const ADD_DOCTOR = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Add a doctor',
  input: { body: DOCTOR_INPUT_FIELDS },
  refusals: [errors.doctorNameTaken(EXAMPLE_ID, 'Dr. Anna Berger')],
  // The names checked are the names when the doctor is stored.
  access: 'read-then-write',
  moreIssues: ({ body }: RawRequest, fieldIssues) => colorIssues(body, fieldIssues),
  run(db, { body }): Doctor {
    const holder = body.allow_duplicate ? undefined : holderOf(listActiveDoctorRows(db), body.name, null);
    if (holder !== undefined) throw errors.doctorNameTaken(holder.id, holder.name);
    const row: DoctorRow = { id: newId(), name: body.name, color: storedColor(body.color), created_at: nowIso(), retired_at: null };
    insertDoctor(db, row);
    return presentDoctor(row);
  },
});

/** ADD_DOCTOR on a connection of its own. */
export function addDoctor(db: Db, input: unknown): Doctor {
  return performUseCase(ADD_DOCTOR, db, { body: input }, { source: 'cli', actor: null });
}

/**
 * `clinic doctor edit`: a doctor's name or colour corrected in place, so every appointment shows
 * the new name. Renaming to a name an active doctor has is 409 DOCTOR_NAME_TAKEN (a name that
 * folds to the doctor's own, a change of case, is no new name). 422 DOCTOR_NOT_FOUND.
 */
export const EDIT_DOCTOR = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Correct a doctor's name or colour",
  input: { path: DOCTOR_PATH_FIELDS, body: DOCTOR_PATCH_FIELDS },
  mergePatch: true,
  refusals: [errors.doctorNotFound(), errors.doctorNameTaken(EXAMPLE_ID, 'Dr. Anna Berger')],
  access: 'read-then-write',
  moreIssues: ({ body }: RawRequest, fieldIssues) => colorIssues(body, fieldIssues),
  run(db, { path, body }): CatalogCorrection<Doctor> {
    const row = findDoctor(db, path.doctor_id);
    if (row === undefined) throw errors.doctorNotFound();
    const before = { name: row.name, color: row.color };
    const after = { name: body.name ?? row.name, color: body.color === undefined ? row.color : storedColor(body.color) };
    if (body.allow_duplicate !== true && foldName(after.name) !== foldName(row.name)) {
      const holder = holderOf(listActiveDoctorRows(db), after.name, row.id);
      if (holder !== undefined) throw errors.doctorNameTaken(holder.id, holder.name);
    }
    const changed = changedFields(before, after);
    if (changed.length > 0) updateDoctor(db, { id: row.id, ...after });
    return { item: presentDoctor({ ...row, ...after }), changed };
  },
  audit: (corrected) => catalogRecords(corrected),
});

/** GET /doctors, `clinic doctor list`: those who can be booked, in the order added; with `include_retired`, all. */
export const LIST_DOCTORS = defineUseCase({
  roles: ROLE_ROWS.lookups,
  summary: 'List doctors',
  input: { query: CATALOG_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  run: (db, { query }): Doctor[] => (query.include_retired ? listDoctorRows(db) : listActiveDoctorRows(db)).map(presentDoctor),
});

/** `clinic service add`: a bookable service with its default duration and price; a name an active service has is 409 SERVICE_NAME_TAKEN. */
export const ADD_SERVICE = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Add a service',
  input: { body: SERVICE_INPUT_FIELDS },
  refusals: [errors.serviceNameTaken(EXAMPLE_ID, 'Kontrolle')],
  access: 'read-then-write',
  moreIssues: ({ body }: RawRequest, fieldIssues) => colorIssues(body, fieldIssues),
  run(db, { body }): Service {
    const holder = body.allow_duplicate ? undefined : holderOf(listActiveServiceRows(db), body.name, null);
    if (holder !== undefined) throw errors.serviceNameTaken(holder.id, holder.name);
    const row: ServiceRow = {
      id: newId(),
      name: body.name,
      duration_min: body.duration_min,
      price_cents: body.price,
      color: storedColor(body.color),
      created_at: nowIso(),
      retired_at: null,
    };
    insertService(db, row);
    return presentService(row);
  },
});

/** ADD_SERVICE on a connection of its own. */
export function addService(db: Db, input: unknown): Service {
  return performUseCase(ADD_SERVICE, db, { body: input }, { source: 'cli', actor: null });
}

/**
 * `clinic service edit`: a service's name, length, price or colour corrected in place. A new price
 * or length applies to what is booked or invoiced afterwards: no appointment or invoice stored a
 * copy of it, and none is changed. Names as EDIT_DOCTOR's (409 SERVICE_NAME_TAKEN); 422
 * SERVICE_NOT_FOUND.
 */
export const EDIT_SERVICE = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: "Correct a service's name, length, price or colour",
  input: { path: SERVICE_PATH_FIELDS, body: SERVICE_PATCH_FIELDS },
  mergePatch: true,
  refusals: [errors.serviceNotFound(), errors.serviceNameTaken(EXAMPLE_ID, 'Kontrolle')],
  access: 'read-then-write',
  moreIssues: ({ body }: RawRequest, fieldIssues) => colorIssues(body, fieldIssues),
  run(db, { path, body }): CatalogCorrection<Service> {
    const row = findService(db, path.service_id);
    if (row === undefined) throw errors.serviceNotFound();
    const before = { name: row.name, duration_min: row.duration_min, price: row.price_cents, color: row.color };
    const after = {
      name: body.name ?? row.name,
      duration_min: body.duration_min ?? row.duration_min,
      price: body.price ?? row.price_cents,
      color: body.color === undefined ? row.color : storedColor(body.color),
    };
    if (body.allow_duplicate !== true && foldName(after.name) !== foldName(row.name)) {
      const holder = holderOf(listActiveServiceRows(db), after.name, row.id);
      if (holder !== undefined) throw errors.serviceNameTaken(holder.id, holder.name);
    }
    const changed = changedFields(before, after);
    const { price, ...rest } = after;
    if (changed.length > 0) updateService(db, { id: row.id, ...rest, price_cents: price });
    return { item: presentService({ ...row, ...rest, price_cents: price }), changed };
  },
  audit: (corrected) => catalogRecords(corrected),
});

/** GET /services, `clinic service list`: those that can be booked, in the order added; with `include_retired`, all. */
export const LIST_SERVICES = defineUseCase({
  roles: ROLE_ROWS.lookups,
  summary: 'List services',
  input: { query: CATALOG_QUERY_FIELDS },
  refusals: [],
  access: 'read',
  run: (db, { query }): Service[] => (query.include_retired ? listServiceRows(db) : listActiveServiceRows(db)).map(presentService),
});

/** What retiring and reinstating need of a kind: its rows, how it is shown, how it is refused. */
interface RetirableKind<Row extends { id: string; retired_at: string | null }, Item> {
  find(db: Db, id: string): Row | undefined;
  setRetired(db: Db, id: string, retiredAt: string | null): void;
  present(row: Row): Item;
  notFound(): AppError;
}

const DOCTORS: RetirableKind<DoctorRow, Doctor> = {
  find: findDoctor,
  setRetired: setDoctorRetired,
  present: presentDoctor,
  notFound: () => errors.doctorNotFound(),
};

const SERVICES: RetirableKind<ServiceRow, Service> = {
  find: findService,
  setRetired: setServiceRetired,
  present: presentService,
  notFound: () => errors.serviceNotFound(),
};

/**
 * Retires (`retire`) or reinstates a doctor or service: it keeps its id and every appointment that
 * names it; retired, the lists leave it out and a booking that names it is 422 *_RETIRED. Retiring
 * the retired, or reinstating the active, changes nothing (`changed` empty): the first retirement's
 * time stays.
 */
function setRetiredState<Row extends { id: string; retired_at: string | null }, Item>(
  db: Db,
  kind: RetirableKind<Row, Item>,
  id: string,
  retire: boolean,
): CatalogCorrection<Item> {
  const row = kind.find(db, id);
  if (row === undefined) throw kind.notFound();
  if ((row.retired_at !== null) === retire) return { item: kind.present(row), changed: [] };
  const retiredAt = retire ? nowIso() : null;
  kind.setRetired(db, row.id, retiredAt);
  return { item: kind.present({ ...row, retired_at: retiredAt }), changed: ['retired_at'] };
}

/** `clinic doctor retire`: a doctor who left; their appointments keep them. */
export const RETIRE_DOCTOR = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Retire a doctor: no longer bookable, kept on every appointment',
  input: { path: DOCTOR_PATH_FIELDS },
  refusals: [errors.doctorNotFound()],
  access: 'read-then-write',
  run: (db, { path }) => setRetiredState(db, DOCTORS, path.doctor_id, true),
  audit: (corrected) => catalogRecords(corrected),
});

/** `clinic doctor reinstate`: a retired doctor bookable again. */
export const REINSTATE_DOCTOR = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Reinstate a retired doctor',
  input: { path: DOCTOR_PATH_FIELDS },
  refusals: [errors.doctorNotFound()],
  access: 'read-then-write',
  run: (db, { path }) => setRetiredState(db, DOCTORS, path.doctor_id, false),
  audit: (corrected) => catalogRecords(corrected),
});

/** `clinic service retire`: a service no longer offered; its appointments keep it. */
export const RETIRE_SERVICE = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Retire a service: no longer bookable, kept on every appointment',
  input: { path: SERVICE_PATH_FIELDS },
  refusals: [errors.serviceNotFound()],
  access: 'read-then-write',
  run: (db, { path }) => setRetiredState(db, SERVICES, path.service_id, true),
  audit: (corrected) => catalogRecords(corrected),
});

/** `clinic service reinstate`: a retired service bookable again. */
export const REINSTATE_SERVICE = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Reinstate a retired service',
  input: { path: SERVICE_PATH_FIELDS },
  refusals: [errors.serviceNotFound()],
  access: 'read-then-write',
  run: (db, { path }) => setRetiredState(db, SERVICES, path.service_id, false),
  audit: (corrected) => catalogRecords(corrected),
});

import { findDoctor, listDoctorRows, type DoctorRow } from '../../db/doctors.js';
import type { Db } from '../../db/open-database.js';
import { findService, listServiceRows, type ServiceRow } from '../../db/services.js';
import { foldForSearch } from '../../fields/folded-text.js';
import { idOf } from '../../fields/human-numbers.js';
import { errors, type AppError } from '../errors.js';

/** Case- and accent-insensitive text, spaces collapsed: how staff may type a name. */
const fold = (text: string) => foldForSearch(text).replace(/\s+/g, ' ').trim();

/** What a desk name lookup searches: the rows, one by id, and the refusal of the kind. */
interface NamedRows<Row extends { name: string }> {
  byId(id: string): Row | undefined;
  all(): Row[];
  /** "No doctor is called …" / "… could be any of …": the refusal naming what was typed. */
  notFound(message: string): AppError;
  /** `doctor`, `service`: for the messages. */
  kind: string;
}

/**
 * The row `reference` names: an id, or a name typed at the desk: the whole name in any case
 * (`dr. anna berger`), else a part of exactly one name (`berger`). Nothing, or a part that several
 * names share, is refused saying which, so the person can be precise.
 */
function findByName<Row extends { name: string }>(rows: NamedRows<Row>, reference: string): Row {
  const text = reference.trim();
  const id = idOf(text);
  if (id !== undefined) {
    const byId = rows.byId(id);
    if (byId) return byId;
  }
  const wanted = fold(text);
  const all = rows.all();
  const exact = all.filter((row) => fold(row.name) === wanted);
  const candidates = exact.length > 0 || wanted === '' ? exact : all.filter((row) => fold(row.name).includes(wanted));
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) throw rows.notFound(`No ${rows.kind} is called "${text}".`);
  throw rows.notFound(`"${text}" could be any of ${candidates.map((row) => row.name).join(', ')}.`);
}

/** The doctor `reference` names (id or name, findByName's rules); else 422 DOCTOR_NOT_FOUND. */
export function findDoctorByReference(db: Db, reference: string): DoctorRow {
  return findByName(
    { byId: (id) => findDoctor(db, id), all: () => listDoctorRows(db), notFound: errors.doctorNotFound, kind: 'doctor' },
    reference,
  );
}

/** The service `reference` names (id or name, findByName's rules); else 422 SERVICE_NOT_FOUND. */
export function findServiceByReference(db: Db, reference: string): ServiceRow {
  return findByName(
    { byId: (id) => findService(db, id), all: () => listServiceRows(db), notFound: errors.serviceNotFound, kind: 'service' },
    reference,
  );
}

import { findDoctor, listDoctorRows, type DoctorRow } from '../../db/doctors.js';
import type { Db } from '../../db/open-database.js';
import { findService, listServiceRows, type ServiceRow } from '../../db/services.js';
import { foldName } from '../../fields/folded-text.js';
import { idOf } from '../../fields/human-numbers.js';
import { errors, type AppError } from '../../errors.js';

/** What a desk name lookup searches: the rows, one by id, and the refusal of the kind. */
interface NamedRows<Row extends { id: string; name: string; retired_at: string | null }> {
  byId(id: string): Row | undefined;
  /** Every row, the retired too, in the order added. */
  all(): Row[];
  /** "No doctor is called …" / "… could be any of …": the refusal naming what was typed. */
  notFound(message: string): AppError;
  /** `doctor`, `service`: for the messages. */
  kind: string;
}

/** The rows `wanted` (folded) names: those of exactly that name, else those whose name holds it. */
function namedBy<Row extends { name: string }>(rows: readonly Row[], wanted: string): Row[] {
  const exact = rows.filter((row) => foldName(row.name) === wanted);
  return exact.length > 0 || wanted === '' ? exact : rows.filter((row) => foldName(row.name).includes(wanted));
}

/**
 * The row `reference` names: an id, or a name typed at the desk: the whole name in any case
 * (`dr. anna berger`), else a part of exactly one name (`berger`). Names are looked for among the
 * active rows first, and among the retired (1.3.0) only when no active one matches: a doctor who
 * left neither makes `berger` ambiguous nor takes a booking meant for a colleague, yet `doctor
 * reinstate berger` and a day sheet of hers still find her. Nothing, or a part that several names
 * share, is refused saying which, so the person can be precise.
 */
function findByName<Row extends { id: string; name: string; retired_at: string | null }>(rows: NamedRows<Row>, reference: string): Row {
  const text = reference.trim();
  const id = idOf(text);
  if (id !== undefined) {
    const byId = rows.byId(id);
    if (byId) return byId;
  }
  const wanted = foldName(text);
  const all = rows.all();
  const active = namedBy(
    all.filter((row) => row.retired_at === null),
    wanted,
  );
  const candidates = active.length > 0 ? active : namedBy(all, wanted);
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) throw rows.notFound(`No ${rows.kind} is called "${text}".`);
  throw rows.notFound(`"${text}" could be any of ${candidateNames(candidates).join(', ')}.`);
}

/** The candidates as a refusal lists them: by name, with the id where two share a name (which only the id tells apart). */
function candidateNames(rows: readonly { id: string; name: string }[]): string[] {
  const shared = (row: { name: string }) => rows.filter((other) => foldName(other.name) === foldName(row.name)).length > 1;
  return rows.map((row) => (shared(row) ? `${row.name} (${row.id})` : row.name));
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

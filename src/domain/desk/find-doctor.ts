import { findDoctor, listDoctorRows, type DoctorRow } from '../../db/doctors.js';
import type { Db } from '../../db/open-database.js';
import { foldForSearch } from '../../fields/folded-text.js';
import { UUID_PATTERN } from '../../fields/human-numbers.js';
import { errors } from '../errors.js';

/** Case- and accent-insensitive text, spaces collapsed: how staff may type a name. */
const fold = (text: string) => foldForSearch(text).replace(/\s+/g, ' ').trim();

/**
 * The doctor `reference` names: an id, or a name typed at the desk: the whole name in any case
 * (`dr. anna berger`), else a part of exactly one doctor's name (`berger`). Nothing, or a part
 * that several names share, is 422 DOCTOR_NOT_FOUND saying which, so the person can be precise.
 */
export function findDoctorByReference(db: Db, reference: string): DoctorRow {
  const text = reference.trim();
  if (UUID_PATTERN.test(text)) {
    const byId = findDoctor(db, text.toLowerCase());
    if (byId) return byId;
  }
  const wanted = fold(text);
  const doctors = listDoctorRows(db);
  const exact = doctors.filter((doctor) => fold(doctor.name) === wanted);
  const candidates = exact.length > 0 || wanted === '' ? exact : doctors.filter((doctor) => fold(doctor.name).includes(wanted));
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) throw errors.doctorNotFound(`No doctor is called "${text}".`);
  throw errors.doctorNotFound(`"${text}" could be any of ${candidates.map((doctor) => doctor.name).join(', ')}.`);
}

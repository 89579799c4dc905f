import { listDoctorRows } from '../../db/doctors.js';
import type { Db } from '../../db/open-database.js';
import { clinicTimeZone } from '../settings.js';

/**
 * What the front desk's printouts need besides the API's shapes: the clinic time zone their
 * times are shown in, and the doctors' names in place of their ids.
 */
export interface DeskContext {
  timeZone: string;
  doctorNames: ReadonlyMap<string, string>;
}

/** The clinic's time zone as set now, and every doctor's name by id (a clinic has a handful). */
export function readDeskContext(db: Db): DeskContext {
  return { timeZone: clinicTimeZone(db), doctorNames: new Map(listDoctorRows(db).map((doctor) => [doctor.id, doctor.name])) };
}

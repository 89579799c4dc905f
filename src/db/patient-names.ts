import { preparedFor, type Db } from './open-database.js';

/** What people know a patient by: the number on paper and the name. */
export interface PatientNameRow {
  patient_number: string;
  first_name: string;
  last_name: string;
}

const statements = preparedFor((db) => ({
  // One probe of the UNIQUE index on patients.id.
  byId: db.prepare<[string], PatientNameRow>('SELECT patient_number, first_name, last_name FROM patients WHERE id = ?'),
}));

/** The number and name of the patient with this id, or undefined. */
export function findPatientName(db: Db, id: string): PatientNameRow | undefined {
  return statements(db).byId.get(id);
}

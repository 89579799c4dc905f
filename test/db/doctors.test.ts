// The doctors' table (clinic-public-api.md's GET /doctors; clinic-api-1.3.md, "Doctors and services"):
// the order they are listed in, the retired left out of what can be booked, and what an edit writes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  findDoctor,
  insertDoctor,
  listActiveDoctorRows,
  listDoctorRows,
  setDoctorRetired,
  updateDoctor,
  type DoctorRow,
} from '../../src/db/doctors.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** A doctor who can be booked, added at 08:00. */
function activeDoctor(name: string): DoctorRow {
  return { id: randomUUID(), name, color: 'blue', created_at: '2026-11-30T08:00:00.000Z', retired_at: null };
}

describe('doctors (db)', () => {
  const data = useTestDatabase({ each: true });
  const names = (rows: DoctorRow[]) => rows.map((row) => row.name);

  it('lists doctors in the order they were added, not by name, and none before the first', () => {
    assert.deepEqual(listDoctorRows(data.db), []);
    for (const name of ['Dr. Wagner', 'Dr. Berger', 'Dr. Huber']) insertDoctor(data.db, activeDoctor(name));
    assert.deepEqual(names(listDoctorRows(data.db)), ['Dr. Wagner', 'Dr. Berger', 'Dr. Huber']);
    assert.deepEqual(names(listActiveDoctorRows(data.db)), ['Dr. Wagner', 'Dr. Berger', 'Dr. Huber']);
  });

  it('leaves a retired doctor out of those who can be booked, keeps them in the whole list, and puts them back in place when reinstated', () => {
    const doctors = ['Dr. Wagner', 'Dr. Berger', 'Dr. Huber'].map(activeDoctor);
    for (const doctor of doctors) insertDoctor(data.db, doctor);
    setDoctorRetired(data.db, doctors[1]!.id, '2026-12-01T09:00:00.000Z');
    assert.deepEqual(names(listActiveDoctorRows(data.db)), ['Dr. Wagner', 'Dr. Huber']);
    assert.deepEqual(
      listDoctorRows(data.db).map((row) => [row.name, row.retired_at]),
      [
        ['Dr. Wagner', null],
        ['Dr. Berger', '2026-12-01T09:00:00.000Z'],
        ['Dr. Huber', null],
      ],
    );
    assert.equal(findDoctor(data.db, doctors[1]!.id)?.retired_at, '2026-12-01T09:00:00.000Z');
    setDoctorRetired(data.db, doctors[1]!.id, null);
    assert.deepEqual(names(listActiveDoctorRows(data.db)), ['Dr. Wagner', 'Dr. Berger', 'Dr. Huber']);
  });

  it('writes a new name and colour and nothing else: a retired doctor stays retired, and when added stays as it was', () => {
    const doctor = activeDoctor('Dr. Wagner');
    insertDoctor(data.db, doctor);
    setDoctorRetired(data.db, doctor.id, '2026-12-01T09:00:00.000Z');
    updateDoctor(data.db, { id: doctor.id, name: 'Dr. Wagner-Huber', color: '#a0c' });
    assert.deepEqual(findDoctor(data.db, doctor.id), {
      ...doctor,
      name: 'Dr. Wagner-Huber',
      color: '#a0c',
      retired_at: '2026-12-01T09:00:00.000Z',
    });
  });

  it('finds no doctor by an id of none, and changes no one by it', () => {
    const doctor = activeDoctor('Dr. Wagner');
    insertDoctor(data.db, doctor);
    const unknown = randomUUID();
    assert.equal(findDoctor(data.db, unknown), undefined);
    updateDoctor(data.db, { id: unknown, name: 'Nobody', color: 'red' });
    setDoctorRetired(data.db, unknown, '2026-12-01T09:00:00.000Z');
    assert.deepEqual(listDoctorRows(data.db), [doctor]);
  });
});

// The services' table (clinic-public-api.md's GET /services; clinic-api-1.3.md, "Doctors and services"):
// the order they are listed in, the retired left out of what can be booked, and what an edit writes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  findService,
  insertService,
  listActiveServiceRows,
  listServiceRows,
  setServiceRetired,
  updateService,
  type ServiceRow,
} from '../../src/db/services.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { useTestDatabase } from '../helpers/fixtures.js';

/** A service of 30 minutes at 85.00 that can be booked, added at 08:00. */
function activeService(name: string): ServiceRow {
  return {
    id: randomUUID(),
    name,
    duration_min: 30,
    price_cents: 8500,
    color: 'green',
    created_at: '2026-11-30T08:00:00.000Z',
    retired_at: null,
  };
}

describe('services (db)', () => {
  const data = useTestDatabase({ each: true });
  const names = (rows: ServiceRow[]) => rows.map((row) => row.name);

  it('lists services in the order they were added, leaves a retired one out of what can be booked and puts it back in place when reinstated', () => {
    const services = ['Check-up', 'Blood test', 'ECG'].map(activeService);
    for (const service of services) insertService(data.db, service);
    assert.deepEqual(names(listActiveServiceRows(data.db)), ['Check-up', 'Blood test', 'ECG']);
    setServiceRetired(data.db, services[0]!.id, '2026-12-01T09:00:00.000Z');
    assert.deepEqual(names(listActiveServiceRows(data.db)), ['Blood test', 'ECG']);
    assert.deepEqual(names(listServiceRows(data.db)), ['Check-up', 'Blood test', 'ECG']);
    assert.equal(findService(data.db, services[0]!.id)?.retired_at, '2026-12-01T09:00:00.000Z');
    setServiceRetired(data.db, services[0]!.id, null);
    assert.deepEqual(names(listActiveServiceRows(data.db)), ['Check-up', 'Blood test', 'ECG']);
  });

  it('writes a new name, length, price and colour and nothing else: a retired service stays retired', () => {
    const service = activeService('Check-up');
    insertService(data.db, service);
    setServiceRetired(data.db, service.id, '2026-12-01T09:00:00.000Z');
    updateService(data.db, { id: service.id, name: 'Full check-up', duration_min: 45, price_cents: 12000, color: '#ff8800' });
    assert.deepEqual(findService(data.db, service.id), {
      ...service,
      name: 'Full check-up',
      duration_min: 45,
      price_cents: 12000,
      color: '#ff8800',
      retired_at: '2026-12-01T09:00:00.000Z',
    });
    assert.equal(findService(data.db, randomUUID()), undefined);
  });

  it('keeps a free service (price 0) and refuses one of no length or a price below 0', () => {
    insertService(data.db, { ...activeService('Advice'), price_cents: 0, duration_min: 1 });
    assert.equal(listServiceRows(data.db)[0]?.price_cents, 0);
    for (const refused of [{ duration_min: 0 }, { price_cents: -1 }]) {
      assert.throws(
        () => insertService(data.db, { ...activeService('Broken'), ...refused }),
        (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_CHECK',
        JSON.stringify(refused),
      );
    }
    const advice = listServiceRows(data.db)[0]!;
    assert.throws(
      () => updateService(data.db, { ...advice, duration_min: 0 }),
      (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_CHECK',
    );
    assert.deepEqual(names(listServiceRows(data.db)), ['Advice']);
    assert.equal(findService(data.db, advice.id)?.duration_min, 1);
  });
});

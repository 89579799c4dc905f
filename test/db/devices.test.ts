// The desk PCs' table (clinic-api-1.3.md, "Pairing"): how a device is found by its name, code or
// token, what a pairing, join or revocation may change of it, and what `desk list` shows IT.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  deviceNameKeys,
  findDeviceByCodeHash,
  findDeviceById,
  findDeviceByNameKey,
  findDeviceByTokenHash,
  insertDevice,
  listDeviceRows,
  markDeviceSeen,
  updateDeviceRow,
  type DeviceRow,
} from '../../src/db/devices.js';
import { buildDeviceRow } from '../helpers/builders.js';
import { assertSchemaRefuses, assertUpdateKeepsIdentity } from '../helpers/db-rows.js';
import { useTestDatabase } from '../helpers/fixtures.js';

describe('desk PCs (db)', () => {
  const data = useTestDatabase({ each: true });

  it('lists devices in the order paired and knows their names lower-cased, for the smallest free "Desk N"', () => {
    for (const name of ['Reception', 'Desk 2', 'Desk 1']) insertDevice(data.db, buildDeviceRow(name, `code-${name}`));
    assert.deepEqual(
      listDeviceRows(data.db).map((row) => row.name),
      ['Reception', 'Desk 2', 'Desk 1'],
    );
    assert.deepEqual(deviceNameKeys(data.db), new Set(['reception', 'desk 2', 'desk 1']));
  });

  it('refuses a second device of a name in another case, and holds any number of devices without a token', () => {
    insertDevice(data.db, buildDeviceRow('Reception', 'code-1'));
    insertDevice(data.db, buildDeviceRow('Lab', 'code-2'));
    assertSchemaRefuses(() => insertDevice(data.db, buildDeviceRow('RECEPTION', 'code-3')), 'SQLITE_CONSTRAINT_UNIQUE');
    assert.equal(listDeviceRows(data.db).length, 2);
  });

  it('finds a device by its id, its lower-cased name, its code and its token, and nothing by another', () => {
    const device = buildDeviceRow('Reception 2', 'code-hash');
    insertDevice(data.db, device);
    assert.equal(findDeviceById(data.db, device.id)?.name, 'Reception 2');
    assert.equal(findDeviceByNameKey(data.db, 'reception 2')?.id, device.id);
    assert.equal(findDeviceByNameKey(data.db, 'Reception 2'), undefined);
    assert.equal(findDeviceByCodeHash(data.db, 'code-hash')?.id, device.id);
    assert.equal(findDeviceByCodeHash(data.db, 'other'), undefined);
    updateDeviceRow(data.db, {
      ...device,
      code_hash: null,
      code_expires_at: null,
      token_hash: 'token-hash',
      joined_at: '2026-11-30T08:05:00.000Z',
    });
    assert.equal(findDeviceByTokenHash(data.db, 'token-hash')?.id, device.id);
    assert.equal(findDeviceByCodeHash(data.db, 'code-hash'), undefined, 'a used code finds nothing');
    assert.equal(findDeviceById(data.db, randomUUID()), undefined);
  });

  it('stores what a join and a revocation change, and never the name, its key or when it was paired', () => {
    const device = buildDeviceRow('Reception', 'code-hash');
    insertDevice(data.db, device);
    const revoked: DeviceRow = {
      ...device,
      code_hash: null,
      code_expires_at: null,
      token_hash: 'token-hash',
      joined_at: '2026-11-30T08:05:00.000Z',
      revoked_at: '2026-12-01T09:00:00.000Z',
      host_name: 'front-desk',
      last_seen_at: '2026-11-30T08:05:00.000Z',
      last_address: '192.168.1.20',
      desk_version: '1.3.0',
    };
    assertUpdateKeepsIdentity(
      revoked,
      (row) => updateDeviceRow(data.db, row),
      () => findDeviceById(data.db, device.id),
      { name: 'Reception', name_key: 'reception', created_at: '2026-11-30T08:00:00.000Z' },
    );
  });

  it("notes when and from where a device was last seen, keeping its desk's version when a request names none", () => {
    const device = buildDeviceRow('Reception', 'code-hash');
    insertDevice(data.db, device);
    markDeviceSeen(data.db, device.id, '2026-11-30T09:00:00.000Z', '192.168.1.20', '1.3.0');
    markDeviceSeen(data.db, device.id, '2026-11-30T09:01:00.000Z', '192.168.1.21', null);
    const seen = findDeviceById(data.db, device.id)!;
    assert.deepEqual([seen.last_seen_at, seen.last_address, seen.desk_version], ['2026-11-30T09:01:00.000Z', '192.168.1.21', '1.3.0']);
    markDeviceSeen(data.db, device.id, '2026-11-30T09:02:00.000Z', '192.168.1.21', '1.3.1');
    assert.equal(findDeviceById(data.db, device.id)?.desk_version, '1.3.1');
  });
});

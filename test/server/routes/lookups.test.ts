import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDoctor, addService, RETIRE_DOCTOR, RETIRE_SERVICE } from '../../../src/domain/catalog.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { useTestServer } from '../../helpers/fixtures.js';

describe('lookup endpoints', () => {
  const server = useTestServer();

  it('lists the eight document types publicly, in the specified order', async () => {
    const response = await server.request('GET', '/document-types', { key: null });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.map((t: { key: string }) => t.key),
      ['invoices', 'quotations', 'xrays', 'scans', 'prescriptions', 'consent', 'communications', 'other'],
    );
    for (const type of response.body) assert.equal(typeof type.label, 'string');
  });

  it('lists payment methods publicly with requires_note true only for other', async () => {
    const response = await server.request('GET', '/payment-methods', { key: null });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, [
      { key: 'cash', requires_note: false },
      { key: 'card', requires_note: false },
      { key: 'bank', requires_note: false },
      { key: 'other', requires_note: true },
    ]);
  });

  it('ignores a bad Authorization header on the public lookups', async () => {
    const response = await server.request('GET', '/payment-methods', { headers: { authorization: 'Bearer nonsense' } });
    assert.equal(response.status, 200);
  });

  it('requires a key for doctors and services', async () => {
    for (const path of ['/doctors', '/services']) {
      const response = await server.request('GET', path, { key: null });
      assert.equal(response.status, 401);
      assert.equal(response.body.detail.code, 'UNAUTHENTICATED');
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    }
  });

  it('lists doctors and services added through the domain, in the order added', async () => {
    const doctor = addDoctor(server.db, { name: 'Dr. Grey', color: '#123456' });
    const service = addService(server.db, { name: 'Cleaning', duration_min: 45, price: '80.50', color: '#00ff00' });
    const doctors = await server.request('GET', '/doctors');
    assert.deepEqual(doctors.body, [doctor]);
    const services = await server.request('GET', '/services');
    assert.deepEqual(services.body, [
      { id: service.id, name: 'Cleaning', duration_min: 45, price: 80.5, color: '#00ff00', retired_at: null },
    ]);
    // 1.3.0 appends retired_at after the 1.0.0 fields.
    assert.deepEqual(Object.keys(doctors.body[0]!), ['id', 'name', 'color', 'retired_at']);
    assert.deepEqual(Object.keys(services.body[0]!), ['id', 'name', 'duration_min', 'price', 'color', 'retired_at']);
  });

  it('leaves the retired out unless include_retired=true (1.3.0)', async () => {
    const retiring = addDoctor(server.db, { name: 'Dr. Left', color: 'grey' });
    const dropped = addService(server.db, { name: 'Old Treatment', duration_min: 20, price: 10, color: 'brown' });
    const asked = { source: 'cli', actor: null } as const;
    const retired = performUseCase(RETIRE_DOCTOR, server.db, { path: { doctor_id: retiring.id } }, asked).item;
    performUseCase(RETIRE_SERVICE, server.db, { path: { service_id: dropped.id } }, asked);
    assert.ok(retired.retired_at !== null);

    const active = await server.request('GET', '/doctors');
    assert.ok(!active.body.some((doctor: { id: string }) => doctor.id === retiring.id));
    for (const query of ['?include_retired=true', '?include_retired=1']) {
      const all = await server.request('GET', `/doctors${query}`);
      assert.deepEqual(all.body.at(-1), retired, query);
    }
    assert.deepEqual((await server.request('GET', '/doctors?include_retired=false')).body, active.body);
    assert.ok(!(await server.request('GET', '/services')).body.some((service: { id: string }) => service.id === dropped.id));
    assert.equal((await server.request('GET', '/services?include_retired=true')).body.at(-1).id, dropped.id);
    const bad = await server.request('GET', '/services?include_retired=maybe');
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['query', 'include_retired']);
  });
});

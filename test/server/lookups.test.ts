import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDoctor, addService } from '../../src/domain/catalog.js';
import { useTestServer } from '../helpers/fixtures.js';

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
    assert.deepEqual(services.body, [{ id: service.id, name: 'Cleaning', duration_min: 45, price: 80.5, color: '#00ff00' }]);
  });
});

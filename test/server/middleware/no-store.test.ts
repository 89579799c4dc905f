import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATIONS } from '../../../src/server/api/api-operations.js';
import { buildPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';

/** clinic-api-1.2.md, "Network": every answer of an endpoint that takes a key carries `Cache-Control: no-store`. */
describe('Cache-Control: no-store', () => {
  const server = useTestServer();

  it('is on every keyed answer: a patient, a list, a download, and their refusals (401, 403, 404, 422)', async () => {
    const patient = await server.request('POST', '/patients', { body: buildPatient() });
    assert.equal(patient.status, 201);
    const upload = new FormData();
    upload.set('file', new Blob([Buffer.from('%PDF-1.4 scan')], { type: 'application/pdf' }), 'scan.pdf');
    const document = await fetch(`${server.baseUrl}/patients/${patient.body.id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}` },
      body: upload,
    });
    assert.equal(document.status, 201);
    const { id: documentId } = (await document.json()) as { id: string };
    const answers = [
      patient,
      await server.request('GET', `/patients/${patient.body.id}`),
      await server.request('GET', '/patients?q=a'),
      await server.request('GET', '/doctors'),
      await server.request('GET', '/events'),
      await server.request('GET', '/patients', { key: null }),
      await server.request('GET', '/patients', { key: 'clinic_not-a-key' }),
      await server.request('GET', `/patients/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`),
      await server.request('POST', '/patients', { body: {} }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [201, 200, 200, 200, 200, 401, 401, 404, 422],
    );
    const download = await fetch(`${server.baseUrl}/patients/${patient.body.id}/documents/${documentId}`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('cache-control'), 'no-store', 'the download');
    await download.arrayBuffer();
    for (const answer of answers)
      assert.equal(answer.headers.get('cache-control'), 'no-store', `${answer.status} ${answer.text.slice(0, 80)}`);
    const forbidden = await server.request('GET', '/audit-events', { key: server.createKey(['patients:read']) });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.headers.get('cache-control'), 'no-store');
  });

  it('is on every operation that takes a key or a session, and on none of the public ones but /health', async () => {
    for (const op of OPERATIONS) {
      if (op.method !== 'get' || op.path.includes('{')) continue;
      const answer = await server.request('GET', op.path, { key: null });
      // A desk PC's session (1.3.0) is as private as a key's answers.
      if (op.scope !== undefined || op.credentials !== undefined) assert.equal(answer.headers.get('cache-control'), 'no-store', op.path);
      // GET /health is public but never to be cached either: a monitor must see the state of now.
      else if (op.path !== '/health') assert.notEqual(answer.headers.get('cache-control'), 'no-store', op.path);
    }
  });
});

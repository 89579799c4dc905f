import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { revokeApiKey, listApiKeys } from '../../../src/domain/api-keys.js';
import { buildPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';

describe('API keys and scopes', () => {
  const server = useTestServer();

  const badHeaders: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a Basic header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a key', { authorization: 'Bearer ' }],
    ['an unknown key', { authorization: 'Bearer clinic_unknown' }],
    ['the key without the Bearer scheme', { authorization: 'KEY' }],
  ];
  for (const [name, headers] of badHeaders) {
    it(`answers ${name} with 401 UNAUTHENTICATED and WWW-Authenticate: Bearer`, async () => {
      const resolved = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('KEY', server.key)]));
      const response = await server.request('GET', '/doctors', { key: null, headers: resolved });
      assert.equal(response.status, 401);
      assert.equal(response.body.detail.code, 'UNAUTHENTICATED');
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    });
  }

  it('accepts the scheme name in any case', async () => {
    const response = await server.request('GET', '/doctors', { key: null, headers: { authorization: `bearer ${server.key}` } });
    assert.equal(response.status, 200);
  });

  it('stores only the SHA-256 of a key', () => {
    const rows = server.db.prepare('SELECT key_hash FROM api_keys').all() as { key_hash: string }[];
    const expected = createHash('sha256').update(server.key).digest('hex');
    assert.ok(rows.some((r) => r.key_hash === expected));
    const dump = JSON.stringify(server.db.prepare('SELECT * FROM api_keys').all());
    assert.equal(dump.includes(server.key), false);
  });

  it('issues keys of 256 random bits', () => {
    const key = server.createKey();
    const secret = key.replace(/^clinic_/, '');
    assert.equal(Buffer.from(secret, 'base64url').length, 32);
    assert.notEqual(key, server.createKey());
  });

  it('answers a key without the needed scope with 403 FORBIDDEN', async () => {
    const lookupsOnly = server.createKey(['lookups:read']);
    const denied = await server.request('POST', '/patients', { key: lookupsOnly, body: buildPatient() });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.detail.code, 'FORBIDDEN');
    const allowed = await server.request('GET', '/doctors', { key: lookupsOnly });
    assert.equal(allowed.status, 200);
    const patientsOnly = server.createKey(['patients:write']);
    assert.equal((await server.request('GET', '/services', { key: patientsOnly })).status, 403);
  });

  it('checks the scope before the body', async () => {
    const lookupsOnly = server.createKey(['lookups:read']);
    const response = await server.request('POST', '/patients', {
      key: lookupsOnly,
      rawBody: 'not json',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(response.status, 403);
  });

  it('refuses a revoked key at once on the running server', async () => {
    const key = server.createKey();
    assert.equal((await server.request('GET', '/doctors', { key })).status, 200);
    const id = listApiKeys(server.db).at(-1)!.id;
    revokeApiKey(server.db, id);
    const response = await server.request('GET', '/doctors', { key });
    assert.equal(response.status, 401);
    assert.equal(response.body.detail.code, 'UNAUTHENTICATED');
  });
});

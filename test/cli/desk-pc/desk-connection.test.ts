// A desk PC's connection to its server (src/cli/desk-pc/desk-connection.ts): every request as its device (`Clinic-Device`), a person's as their session (`Authorization: Bearer`), LOGIN_REQUIRED without one, and the server's refusals as coded errors; clinic-api-1.3.md, "Pairing", "Sessions", "Commands on a desk PC".
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, describe, it, type TestContext } from 'node:test';
import { DeskConnection, newDeskKey } from '../../../src/cli/desk-pc/desk-connection.js';
import { deskSessionKey, writeDeskFile, type DeskFile } from '../../../src/cli/desk-pc/desk-file.js';
import { keepToken } from '../../../src/cli/desk-identity.js';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from '../../../src/domain/tls/certificates.js';
import { LOOPBACK_NAMES } from '../../../src/domain/tls/tls-names.js';
import { useConfigHome } from '../../helpers/fixtures.js';

describe("a desk PC's connection to its server (DeskConnection)", () => {
  const now = new Date();
  const nextYear = new Date(now.getTime() + 365 * 86_400_000);
  let ca: PemPair;
  let certificate: PemPair;
  useConfigHome({ prefix: 'clinic-desk-connection-' });
  before(async () => {
    ca = await createCertificateAuthority('desk test CA', now, nextYear);
    certificate = await issueServerCertificate(ca, LOOPBACK_NAMES, now, nextYear);
  });

  /** A server over HTTPS on 127.0.0.1 answering with `handler` until the test ends, and this PC joined to it (desk.json). */
  async function joinedServer(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<DeskFile> {
    const server: Server = createServer({ cert: certificate.certificatePem, key: certificate.keyPem }, handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    const desk: DeskFile = {
      server_url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      ca_pem: ca.certificatePem,
      ca_sha256: '',
      device_id: '0f0f0f0f-0000-4000-8000-000000000001',
      device_name: 'Empfang 2',
      device_token: 'cld_empfang_2',
      server_version: '1.3.0',
      joined_at: now.toISOString(),
    };
    writeDeskFile(desk);
    return desk;
  }
  /** Answers each request with the credentials it came with. */
  const echoCredentials = (req: IncomingMessage, res: ServerResponse) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ device: req.headers['clinic-device'] ?? null, authorization: req.headers.authorization ?? null }));

  it('is no connection on a PC that joined no server: DESK_NOT_JOINED', () => {
    assert.throws(() => new DeskConnection(), { code: 'DESK_NOT_JOINED' });
  });

  it("sends every request as the PC's device, and with a session as its person too", async (t) => {
    await joinedServer(t, echoCredentials);
    const connection = new DeskConnection();
    assert.deepEqual((await connection.send({ method: 'GET', path: '/health' })).body, { device: 'cld_empfang_2', authorization: null });
    assert.deepEqual((await connection.send({ method: 'DELETE', path: '/sessions/current' }, { session: 'cls_rita' })).body, {
      device: 'cld_empfang_2',
      authorization: 'Bearer cls_rita',
    });
  });

  it('sends as the person logged in at this PC for this server, and refuses without one before sending: LOGIN_REQUIRED', async (t) => {
    let requests = 0;
    const desk = await joinedServer(t, (req, res) => {
      requests++;
      echoCredentials(req, res);
    });
    const connection = new DeskConnection();
    // A session kept for another server is no session for this one.
    keepToken(deskSessionKey({ server_url: 'https://praxis-2:8080' }), 'cls_elsewhere');
    await assert.rejects(connection.sendAsPerson({ method: 'POST', path: '/desk/commands', body: { argv: [] } }), {
      code: 'LOGIN_REQUIRED',
      message: 'this command needs a person; log in with: clinic login --as NAME',
    });
    assert.equal(requests, 0, 'nothing was sent');
    keepToken(deskSessionKey(desk), 'cls_rita');
    assert.equal(connection.sessionToken(), 'cls_rita');
    const sent = await connection.sendAsPerson({ method: 'POST', path: '/desk/commands', body: { argv: [] } });
    assert.deepEqual(sent.body, { device: 'cld_empfang_2', authorization: 'Bearer cls_rita' });
  });

  it("throws the server's refusal as its coded error, whatever the status from 400", async (t) => {
    let status = 401;
    await joinedServer(t, (_req, res) =>
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ detail: { code: status === 401 ? 'DEVICE_REVOKED' : 'DATABASE_BUSY', message: 'refused' } })),
    );
    const connection = new DeskConnection();
    await assert.rejects(connection.send({ method: 'GET', path: '/sessions/current' }), { status: 401, code: 'DEVICE_REVOKED' });
    status = 503;
    await assert.rejects(connection.send({ method: 'GET', path: '/health' }), { status: 503, code: 'DATABASE_BUSY' });
    status = 304;
    assert.equal((await connection.send({ method: 'GET', path: '/health' })).status, 304, 'below 400 is an answer');
  });

  it('gives each command that changes something a new key of its own', () => {
    const keys = Array.from({ length: 50 }, () => newDeskKey());
    for (const key of keys) assert.match(key, /^desk-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(new Set(keys).size, keys.length);
  });
});

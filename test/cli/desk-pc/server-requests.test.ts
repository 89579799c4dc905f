// How a desk PC talks to its server (src/cli/desk-pc/server-requests.ts): clinic-api-1.3.md, "Versions, failures, retries" (HTTPS trusting only the CA joined with, the version header, SERVER_UNREACHABLE, one resend, SERVER_NO_ANSWER) and "Commands on a desk PC" (input files as multipart/form-data).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { askServer, refusalOf, type ServerAddress } from '../../../src/cli/desk-pc/server-requests.js';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from '../../../src/domain/tls/certificates.js';
import { LOOPBACK_NAMES } from '../../../src/domain/tls/tls-names.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

describe('a desk PC asking its server (server-requests)', () => {
  const now = new Date();
  const nextYear = new Date(now.getTime() + 365 * 86_400_000);
  let ca: PemPair;
  let certificate: PemPair;
  let folder: string;
  before(async () => {
    ca = await createCertificateAuthority('desk test CA', now, nextYear);
    certificate = await issueServerCertificate(ca, LOOPBACK_NAMES, now, nextYear);
    folder = mkdtempSync(join(tmpdir(), 'clinic-desk-requests-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** Serves `handler` (given each request's whole body) over HTTPS on 127.0.0.1 until the test ends; `pem` another certificate. */
  async function serve(t: TestContext, handler: Handler, pem: PemPair = certificate): Promise<{ server: Server; address: ServerAddress }> {
    const server = createServer({ cert: pem.certificatePem, key: pem.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => handler(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    return { server, address: { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: ca.certificatePem } };
  }
  const answer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = { 'clinic-version': '1.3.0' }) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  it("sends JSON below the API's prefix with the desk's version and the command's key, and reads the answer", async (t) => {
    const { address } = await serve(t, (req, res, body) =>
      answer(res, 200, { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body.toString('utf8')) }),
    );
    const sent = await askServer(address, {
      method: 'POST',
      path: '/desk/commands',
      headers: { 'clinic-device': 'cld_x' },
      body: { argv: ['patient', 'find', 'Müller'] },
      idempotencyKey: 'desk-1',
    });
    const echoed = sent.body as { method: string; url: string; headers: Record<string, string>; body: unknown };
    assert.equal(sent.status, 200);
    assert.deepEqual(
      [echoed.method, echoed.url, echoed.body],
      ['POST', '/api/public/v1/desk/commands', { argv: ['patient', 'find', 'Müller'] }],
    );
    assert.equal(echoed.headers['clinic-version'], '1.3.0');
    assert.equal(echoed.headers['idempotency-key'], 'desk-1');
    assert.equal(echoed.headers['clinic-device'], 'cld_x');
    assert.equal(echoed.headers['content-type'], 'application/json');
    assert.equal(echoed.headers['content-length'], String(Buffer.byteLength(JSON.stringify({ argv: ['patient', 'find', 'Müller'] }))));
  });

  it('works with a server a minor apart, and refuses one further or of another major: VERSION_UNSUPPORTED saying what to install', async (t) => {
    let version = '';
    const { address } = await serve(t, (_req, res) => answer(res, 200, { ok: true }, version === '' ? {} : { 'clinic-version': version }));
    for (version of ['', '1.2.9', '1.3.7', '1.4.0']) {
      assert.equal((await askServer(address, { method: 'GET', path: '/health' })).status, 200, version);
    }
    version = '1.5.0';
    await assert.rejects(askServer(address, { method: 'GET', path: '/health' }), {
      code: 'VERSION_UNSUPPORTED',
      message: 'this desk runs clinic 1.3.0 and the server 1.5.0; install clinic 1.5 or 1.6 here, or update the server',
      details: { desk_version: '1.3.0', server_version: '1.5.0', accepted: ['1.4', '1.5', '1.6'] },
    });
    for (version of ['1.1.0', '2.3.0', '0.3.0']) {
      await assert.rejects(askServer(address, { method: 'GET', path: '/health' }), { code: 'VERSION_UNSUPPORTED' }, version);
    }
  });

  it('is SERVER_UNREACHABLE, nothing sent, when no server listens', async (t) => {
    const { server, address } = await serve(t, () => {});
    await new Promise((resolve) => server.close(resolve));
    await assert.rejects(askServer(address, { method: 'POST', path: '/desk/commands', body: {}, idempotencyKey: 'desk-2' }), {
      code: 'SERVER_UNREACHABLE',
      message: `${address.url} did not answer within 3 s; nothing was sent`,
    });
  });

  it('sends a command whose answer was lost once more with the same key, then SERVER_NO_ANSWER naming the key to repeat it with', async (t) => {
    const keys: (string | undefined)[] = [];
    let answerFrom = 3;
    const { address } = await serve(t, (req, res) => {
      keys.push(req.headers['idempotency-key'] as string | undefined);
      // The request arrived; its answer is lost on the way back.
      if (keys.length < answerFrom) res.socket?.destroy();
      else answer(res, 201, { recorded: true });
    });
    const keyed = { method: 'POST' as const, path: '/desk/commands', body: { argv: ['record-payment'] }, idempotencyKey: 'desk-3' };
    await assert.rejects(askServer(address, keyed), {
      code: 'SERVER_NO_ANSWER',
      message: /did not answer, twice; .* repeat the command with --idempotency-key desk-3 /,
      details: { idempotency_key: 'desk-3' },
    });
    assert.deepEqual(keys, ['desk-3', 'desk-3']);

    keys.length = 0;
    answerFrom = 2;
    assert.equal((await askServer(address, keyed)).status, 201, 'the second sending answered');
    assert.equal(keys.length, 2);

    // A change without a key is never sent twice (a login would count a wrong PIN twice); a read is.
    keys.length = 0;
    answerFrom = 3;
    await assert.rejects(askServer(address, { method: 'POST', path: '/sessions', body: { person: 'anna', pin: '1' } }), {
      code: 'SERVER_NO_ANSWER',
      message: /whether it was done is not known: look before you repeat it/,
    });
    assert.equal(keys.length, 1, 'sent once');
    keys.length = 0;
    await assert.rejects(askServer(address, { method: 'GET', path: '/sessions/current' }), { code: 'SERVER_NO_ANSWER' });
    assert.equal(keys.length, 2, 'a read is sent once more');
    keys.length = 0;
    const readCommand = { method: 'POST' as const, path: '/desk/commands', body: { argv: ['patient', 'find'] }, repeatable: true };
    await assert.rejects(askServer(address, readCommand), { code: 'SERVER_NO_ANSWER' });
    assert.equal(keys.length, 2, 'a read command is sent once more without a key');
  });

  it('lost its answer, not the server, when the resend cannot connect: SERVER_NO_ANSWER', async (t) => {
    let arrived = 0;
    const { server, address } = await serve(t, (_req, res) => {
      arrived++;
      server.close();
      res.socket?.destroy();
    });
    await assert.rejects(askServer(address, { method: 'POST', path: '/desk/commands', body: {}, idempotencyKey: 'desk-4' }), {
      code: 'SERVER_NO_ANSWER',
    });
    assert.equal(arrived, 1);
  });

  it('sends nothing to a server of another CA, or whose certificate does not cover its address, and never again: SERVER_UNTRUSTED', async (t) => {
    const otherCa = await createCertificateAuthority('another CA', now, nextYear);
    let arrived = 0;
    const impostor = await serve(t, () => arrived++, await issueServerCertificate(otherCa, LOOPBACK_NAMES, now, nextYear));
    await assert.rejects(askServer(impostor.address, { method: 'GET', path: '/health' }), {
      code: 'SERVER_UNTRUSTED',
      message: `${impostor.address.url} no longer presents a certificate of the CA this desk joined with (was \`clinic tls init --new-ca\` run?); nothing was sent. Pair this PC again.`,
    });
    // The desk joined with this CA, but the certificate is for another name than the address asked.
    const elsewhere = await serve(
      t,
      () => arrived++,
      await issueServerCertificate(ca, [{ kind: 'dns', value: 'clinic-pc' }], now, nextYear),
    );
    await assert.rejects(askServer(elsewhere.address, { method: 'GET', path: '/health' }), { code: 'SERVER_UNTRUSTED' });
    assert.equal(arrived, 0, 'nothing was sent, and nothing sent again');
  });

  it("sends a command's files as a multipart form of known length, each under its option's part with the file's own name", async (t) => {
    const scan = join(folder, 'Überweisung Lena.pdf');
    writeFileSync(scan, Buffer.from('%PDF-1.4\r\n--not-a-boundary\r\n%%EOF\n'));
    const empty = join(folder, 'token.txt');
    writeFileSync(empty, '');
    let received: { type: string; length: string; body: string } | undefined;
    const { address } = await serve(t, (req, res, body) => {
      received = {
        type: String(req.headers['content-type']),
        length: String(req.headers['content-length']),
        body: body.toString('latin1'),
      };
      answer(res, 200, {});
    });
    await askServer(address, {
      method: 'POST',
      path: '/desk/commands',
      body: { argv: ['upload-document', '--file', scan] },
      files: [
        { part: 'file', path: scan },
        { part: 'token-file', path: empty },
      ],
      idempotencyKey: 'desk-5',
    });
    assert.ok(received !== undefined, 'the form arrived');
    const boundary = /^multipart\/form-data; boundary=(clinic-desk-[0-9a-f-]{36})$/.exec(received.type)?.[1];
    assert.ok(boundary !== undefined, received.type);
    assert.equal(received.length, String(Buffer.byteLength(received.body, 'latin1')), 'Content-Length is the length of the body sent');
    assert.equal(
      received.body,
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="command"\r\nContent-Type: application/json\r\n\r\n` +
          `${JSON.stringify({ argv: ['upload-document', '--file', scan] })}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=utf-8''%C3%9Cberweisung%20Lena.pdf\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n%PDF-1.4\r\n--not-a-boundary\r\n%%EOF\n\r\n' +
          `--${boundary}\r\nContent-Disposition: form-data; name="token-file"; filename*=utf-8''token.txt\r\n` +
          `Content-Type: application/octet-stream\r\n\r\n\r\n--${boundary}--\r\n`,
      ).toString('latin1'),
    );
  });

  it("turns the server's refusal into the coded error the desk prints: a code with its details, the first invalid field, or the status", () => {
    const coded = refusalOf({
      status: 403,
      headers: {},
      body: { detail: { code: 'ROLE_FORBIDDEN', message: 'This needs the role admin.', allowed_roles: ['admin'], roles: ['reception'] } },
    });
    assert.deepEqual(
      [coded.status, coded.code, coded.message, coded.details],
      [403, 'ROLE_FORBIDDEN', 'This needs the role admin.', { allowed_roles: ['admin'], roles: ['reception'] }],
    );
    const issues = [
      { type: 'missing', loc: ['body', 'argv'], msg: 'Field required' },
      { type: 'missing', loc: ['header', 'clinic-device'], msg: 'Field required' },
    ];
    const invalid = refusalOf({ status: 422, headers: {}, body: { detail: issues } });
    assert.deepEqual([invalid.code, invalid.message, invalid.details], ['VALIDATION_ERROR', 'body.argv: Field required', { issues }]);
    const proxy = refusalOf({ status: 502, headers: {}, body: '<html>Bad Gateway</html>' });
    assert.deepEqual([proxy.status, proxy.code, proxy.message], [502, 'SERVER_ERROR', 'the server answered 502']);
    assert.equal(refusalOf({ status: 500, headers: {}, body: null }).code, 'SERVER_ERROR');
  });
});

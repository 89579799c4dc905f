// The file a desk command fetches from the server (src/cli/desk-pc/download.ts): `document save` and `patient export` on a desk PC, clinic-api-1.3.md, "Commands on a desk PC" (output files: a temporary file beside FILE, checked by the ETag, else DOCUMENT_FILE_DAMAGED, then renamed; FILE_EXISTS) and "Versions, failures, retries".
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { downloadTo } from '../../../src/cli/desk-pc/download.js';
import type { ServerAddress } from '../../../src/cli/desk-pc/server-requests.js';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from '../../../src/domain/tls/certificates.js';
import { LOOPBACK_NAMES } from '../../../src/domain/tls/tls-names.js';

const DOCUMENT = Buffer.from('%PDF-1.4\n% Befund von Dr. Grey\n%%EOF\n');
const DOCUMENT_SHA256 = createHash('sha256').update(DOCUMENT).digest('hex');
const DOCUMENT_PATH = '/api/public/v1/patients/p1/documents/d1';

describe("fetching a desk command's file from the server (downloadTo)", () => {
  const now = new Date();
  const nextYear = new Date(now.getTime() + 365 * 86_400_000);
  let certificate: PemPair;
  let caPem: string;
  let folder: string;
  before(async () => {
    const ca = await createCertificateAuthority('desk test CA', now, nextYear);
    caPem = ca.certificatePem;
    certificate = await issueServerCertificate(ca, LOOPBACK_NAMES, now, nextYear);
    folder = mkdtempSync(join(tmpdir(), 'clinic-download-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** Serves `handler` over HTTPS on 127.0.0.1 until the test ends, counting the requests. */
  async function serve(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void) {
    const requests: IncomingMessage[] = [];
    const server: Server = createServer({ cert: certificate.certificatePem, key: certificate.keyPem }, (req, res) => {
      requests.push(req);
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    const address: ServerAddress = { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem };
    return { server, address, requests };
  }
  /** A document's answer as the API sends it: its bytes, its SHA-256 as the ETag, its name. */
  const documentAnswer = (res: ServerResponse, bytes = DOCUMENT, etag = DOCUMENT_SHA256) =>
    res
      .writeHead(200, { 'content-type': 'application/pdf', etag: `"${etag}"`, 'content-disposition': 'attachment; filename="Befund.pdf"' })
      .end(bytes);
  /** What the folder of the tests' targets holds. */
  const left = () => readdirSync(folder).sort();

  it("writes the file whole, this user's alone, and gives its size, SHA-256 and the name the server gave it", async (t) => {
    const { address, requests } = await serve(t, (_req, res) => documentAnswer(res));
    const target = join(folder, 'befund.pdf');
    const fetched = await downloadTo(address, DOCUMENT_PATH, { 'clinic-device': 'cld_x', authorization: 'Bearer cls_y' }, target, false);
    assert.deepEqual(fetched, { size: DOCUMENT.length, sha256: DOCUMENT_SHA256, filename: 'Befund.pdf' });
    assert.deepEqual(readFileSync(target), DOCUMENT);
    if (process.platform !== 'win32') assert.equal(statSync(target).mode & 0o777, 0o600);
    const [request] = requests;
    assert.deepEqual(
      [
        request?.method,
        request?.url,
        request?.headers['clinic-version'],
        request?.headers['clinic-device'],
        request?.headers.authorization,
      ],
      ['GET', DOCUMENT_PATH, '1.3.0', 'cld_x', 'Bearer cls_y'],
    );
    rmSync(target);
  });

  it('leaves no file when the bytes are not those stored (the ETag): DOCUMENT_FILE_DAMAGED', async (t) => {
    const damaged = Buffer.from(DOCUMENT);
    damaged[10] = 0x21;
    const { address } = await serve(t, (_req, res) => documentAnswer(res, damaged));
    await assert.rejects(downloadTo(address, DOCUMENT_PATH, {}, join(folder, 'befund.pdf'), false), { code: 'DOCUMENT_FILE_DAMAGED' });
    assert.deepEqual(left(), [], 'neither the file nor its temporary file');
  });

  it("takes any bytes of an answer without an ETag (the patient's copy, a ZIP made as it is sent)", async (t) => {
    const zip = Buffer.from('PK\x03\x04 a zip of some kind');
    const { address } = await serve(t, (_req, res) =>
      res.writeHead(200, { 'content-disposition': 'attachment; filename="P-000042-2026-11-30.zip"' }).end(zip),
    );
    const target = join(folder, 'copy.zip');
    const fetched = await downloadTo(address, '/api/public/v1/patients/p1/export', {}, target, false);
    assert.deepEqual([fetched.size, fetched.filename], [zip.length, 'P-000042-2026-11-30.zip']);
    assert.deepEqual(readFileSync(target), zip);
    rmSync(target);
  });

  it('never overwrites a file there without --force, and fetches nothing then: FILE_EXISTS; with it the file is replaced', async (t) => {
    const { address, requests } = await serve(t, (_req, res) => documentAnswer(res));
    const target = join(folder, 'there.pdf');
    writeFileSync(target, 'the earlier copy');
    await assert.rejects(downloadTo(address, DOCUMENT_PATH, {}, target, false), {
      code: 'FILE_EXISTS',
      message: `${target} already exists; nothing was written.`,
    });
    assert.equal(readFileSync(target, 'utf8'), 'the earlier copy');
    assert.equal(requests.length, 0, 'nothing was fetched, so no read was recorded');
    await downloadTo(address, DOCUMENT_PATH, {}, target, true);
    assert.deepEqual(readFileSync(target), DOCUMENT);
    assert.deepEqual(left(), ['there.pdf']);
    rmSync(target);
  });

  it("gives the server's refusal as its coded error and leaves no file", async (t) => {
    const { address } = await serve(t, (_req, res) =>
      res
        .writeHead(403, { 'content-type': 'application/json' })
        .end(JSON.stringify({ detail: { code: 'PATIENT_RESTRICTED', message: 'This patient is restricted.' } })),
    );
    await assert.rejects(downloadTo(address, DOCUMENT_PATH, {}, join(folder, 'befund.pdf'), false), {
      status: 403,
      code: 'PATIENT_RESTRICTED',
      message: 'This patient is restricted.',
    });
    assert.deepEqual(left(), []);
  });

  it('leaves no file of an answer cut off (SERVER_NO_ANSWER), and none when no server listens (SERVER_UNREACHABLE)', async (t) => {
    const { server, address } = await serve(t, (_req, res) => {
      res.writeHead(200, { etag: `"${DOCUMENT_SHA256}"`, 'content-length': String(DOCUMENT.length) });
      res.write(DOCUMENT.subarray(0, 10), () => res.socket?.destroy());
    });
    await assert.rejects(downloadTo(address, DOCUMENT_PATH, {}, join(folder, 'befund.pdf'), false), { code: 'SERVER_NO_ANSWER' });
    assert.deepEqual(left(), []);
    await new Promise((resolve) => server.close(resolve));
    await assert.rejects(downloadTo(address, DOCUMENT_PATH, {}, join(folder, 'befund.pdf'), false), { code: 'SERVER_UNREACHABLE' });
    assert.deepEqual(left(), []);
  });
});

import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { acquireInstanceLock } from '../../../src/db/instance-lock.js';
import { createCertificateAuthority, issueServerCertificate } from '../../../src/domain/tls/certificates.js';
import {
  caOfChain,
  deskUrlOf,
  forgetServedEndpoint,
  isLoopbackName,
  readServedEndpoint,
  recordServedEndpoint,
  runningServerEndpoint,
  SERVED_ENDPOINT_FILE,
  type ServedEndpoint,
} from '../../../src/domain/tls/served-endpoint.js';
import { LOOPBACK_NAMES } from '../../../src/domain/tls/tls-names.js';
import { useDataDirs } from '../../helpers/fixtures.js';

// Where a running `clinic serve` is reached (`serve.json`), for `clinic desk pair` on the same PC
// to print the URL and the CA a new desk PC joins with (clinic-api-1.3.md, "Pairing").

const newDir = useDataDirs();
const NOW = new Date('2026-11-30T10:00:00Z');
const YEAR = new Date('2027-11-30T10:00:00Z');

const endpoint = (names: string[]): ServedEndpoint => ({ host: '0.0.0.0', port: 8443, tls: true, names, ca_sha256: 'AB:CD' });

describe('the served endpoint', () => {
  it('is recorded whole beside the database, read back, and forgotten as the server stops; a damaged one reads as none', () => {
    const dataDir = newDir();
    const served = endpoint(['clinic-pc', '192.168.1.20']);
    recordServedEndpoint(dataDir, served);
    recordServedEndpoint(dataDir, { ...served, port: 9443 });
    assert.deepEqual(readServedEndpoint(dataDir), { ...served, port: 9443 });
    assert.deepEqual(readdirSync(dataDir), [SERVED_ENDPOINT_FILE], 'no temporary file left beside it');
    forgetServedEndpoint(dataDir);
    assert.equal(readServedEndpoint(dataDir), undefined);
    writeFileSync(join(dataDir, SERVED_ENDPOINT_FILE), '{"host": "0.0.0.0", "po');
    assert.equal(readServedEndpoint(dataDir), undefined);
  });

  it("is the running server's only while a server holds the data directory: a file a crash left names none", () => {
    const dataDir = newDir();
    recordServedEndpoint(dataDir, endpoint(['clinic-pc']));
    assert.equal(runningServerEndpoint(dataDir), undefined);
    const lock = acquireInstanceLock(dataDir);
    try {
      assert.deepEqual(runningServerEndpoint(dataDir), endpoint(['clinic-pc']));
    } finally {
      lock?.release();
    }
  });
});

describe('deskUrlOf', () => {
  it("gives the certificate's first DNS name but localhost, else its first address off this PC, with the port", () => {
    assert.equal(deskUrlOf(endpoint(['LOCALHOST', '127.0.0.1', 'clinic-pc', 'clinic-pc.praxis.lan'])), 'https://clinic-pc:8443');
    assert.equal(deskUrlOf(endpoint(['localhost', '127.0.0.1', '192.168.1.20', '10.0.0.5'])), 'https://192.168.1.20:8443');
    assert.equal(deskUrlOf(endpoint(['127.0.0.2', '::1', 'fe80::1'])), 'https://[fe80::1]:8443');
  });

  it('gives none for a certificate of this PC alone, its IPv6 loopback written as Node writes it too', () => {
    assert.equal(deskUrlOf(endpoint(['localhost', '127.0.0.1', '::1'])), undefined);
    assert.equal(deskUrlOf(endpoint(['localhost', '127.0.0.1', '0:0:0:0:0:0:0:1'])), undefined);
    assert.equal(deskUrlOf(endpoint([])), undefined);
  });
});

describe('isLoopbackName', () => {
  it('takes localhost in any case, ::1 and the whole of 127.0.0.0/8 as this PC, nothing else', () => {
    for (const host of ['localhost', 'LocalHost', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '127.0.0.1', '127.255.0.9'])
      assert.equal(isLoopbackName(host), true, host);
    for (const host of ['128.0.0.1', '10.127.0.1', 'localhost.praxis.lan', '0.0.0.0', 'clinic-pc', '::', 'fe80::1'])
      assert.equal(isLoopbackName(host), false, host);
  });
});

describe('caOfChain', () => {
  it('finds the CA that signed the server certificate in a served chain, and none in a certificate alone or beside another CA', async () => {
    const ca = await createCertificateAuthority('clinic CA', NOW, new Date('2036-11-30T10:00:00Z'));
    const stranger = await createCertificateAuthority('another CA', NOW, new Date('2036-11-30T10:00:00Z'));
    const server = await issueServerCertificate(ca, LOOPBACK_NAMES, NOW, YEAR);
    const chain = (...pems: string[]) => pems.join('\n');
    const found = caOfChain(chain(server.certificatePem, stranger.certificatePem, ca.certificatePem));
    assert.equal(found?.subject, 'CN=clinic CA\nO=clinic');
    assert.equal(caOfChain(server.certificatePem), undefined);
    assert.equal(caOfChain(chain(server.certificatePem, stranger.certificatePem)), undefined);
    assert.equal(caOfChain(Buffer.from('no certificate')), undefined);
  });
});

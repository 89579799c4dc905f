import 'reflect-metadata';
import { BasicConstraintsExtension, KeyUsageFlags, KeyUsagesExtension, X509Certificate as ParsedCertificate } from '@peculiar/x509';
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import { describe, it } from 'node:test';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from '../../../src/domain/tls/certificates.js';

// The private CA and server certificates of `clinic tls init` (clinic-api-1.2.md, Network, "TLS"),
// as the TLS clients of a clinic's PCs read them.

const NOW = new Date('2026-11-30T10:00:00Z');
const HOUR = 60 * 60 * 1000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

/** Whether a client that trusts `ca` alone completes a TLS handshake with a server of `server` when it asks for `servername`. */
async function clientAccepts(ca: PemPair, server: PemPair, servername: string): Promise<true | string> {
  const listener = createServer({ cert: server.certificatePem, key: server.keyPem }, (socket) => socket.end());
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as AddressInfo;
  try {
    const socket = connect({ host: '127.0.0.1', port, servername, ca: ca.certificatePem });
    try {
      await once(socket, 'secureConnect');
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? String(error);
    } finally {
      socket.destroy();
    }
  } finally {
    listener.close();
  }
}

describe('the private CA', () => {
  it('is a CA that signs server certificates and no CA below it, valid from an hour before it was made, with a P-256 key of its own', async () => {
    const ca = await createCertificateAuthority('clinic private CA clinic-pc 2026-11-30', NOW, new Date('2036-11-30T10:00:00Z'));
    const certificate = new X509Certificate(ca.certificatePem);
    assert.equal(certificate.ca, true);
    assert.ok(certificate.verify(certificate.publicKey), 'self-signed');
    assert.equal(certificate.subject, 'CN=clinic private CA clinic-pc 2026-11-30\nO=clinic');
    assert.deepEqual(
      [new Date(certificate.validFrom), new Date(certificate.validTo)],
      [new Date(NOW.getTime() - HOUR), new Date('2036-11-30T10:00:00Z')],
    );
    const parsed = new ParsedCertificate(ca.certificatePem);
    const constraints = parsed.getExtension(BasicConstraintsExtension);
    assert.deepEqual([constraints?.ca, constraints?.pathLength, constraints?.critical], [true, 0, true]);
    const usages = parsed.getExtension(KeyUsagesExtension);
    assert.deepEqual([usages?.usages, usages?.critical], [KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true]);
    assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    const key = createPrivateKey(ca.keyPem);
    assert.deepEqual([key.asymmetricKeyType, key.asymmetricKeyDetails?.namedCurve], ['ec', 'prime256v1']);
    assert.ok(certificate.checkPrivateKey(key), 'its key is its own');
    assert.match(certificate.serialNumber, /^[0-9A-F]{17,32}$/, 'a serial of up to 128 random bits');
  });
});

describe('a server certificate', () => {
  it('covers its DNS names and IP addresses as subject alternative names, the first as its common name, for TLS servers only', async () => {
    const ca = await createCertificateAuthority('test CA', NOW, new Date('2036-11-30T10:00:00Z'));
    const issued = await issueServerCertificate(
      ca,
      [
        { kind: 'dns', value: 'clinic-pc.praxis.lan' },
        { kind: 'ip', value: '192.168.1.20' },
        { kind: 'ip', value: '::1' },
      ],
      NOW,
      new Date('2029-03-04T10:00:00Z'),
    );
    const certificate = new X509Certificate(issued.certificatePem);
    assert.equal(certificate.subject, 'CN=clinic-pc.praxis.lan\nO=clinic');
    assert.equal(certificate.issuer, new X509Certificate(ca.certificatePem).subject);
    assert.equal(certificate.subjectAltName, 'DNS:clinic-pc.praxis.lan, IP Address:192.168.1.20, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(certificate.ca, false);
    assert.deepEqual(certificate.keyUsage, [SERVER_AUTH]);
    assert.equal(new ParsedCertificate(issued.certificatePem).getExtension(KeyUsagesExtension)?.usages, KeyUsageFlags.digitalSignature);
    assert.ok(certificate.verify(new X509Certificate(ca.certificatePem).publicKey), 'signed by the CA');
    assert.ok(certificate.checkPrivateKey(createPrivateKey(issued.keyPem)), "its key is its own, not the CA's");
    assert.deepEqual(
      [new Date(certificate.validFrom), new Date(certificate.validTo)],
      [new Date(NOW.getTime() - HOUR), new Date('2029-03-04T10:00:00Z')],
    );
  });

  it('is taken by a client that trusts the CA alone, for each of its names and no other', async () => {
    const now = new Date();
    const ca = await createCertificateAuthority('test CA', now, new Date(now.getTime() + 400 * 24 * HOUR));
    const issued = await issueServerCertificate(ca, [{ kind: 'dns', value: 'clinic-pc' }], now, new Date(now.getTime() + 100 * 24 * HOUR));
    assert.equal(await clientAccepts(ca, issued, 'clinic-pc'), true);
    assert.equal(await clientAccepts(ca, issued, 'other-pc'), 'ERR_TLS_CERT_ALTNAME_INVALID');
    const stranger = await createCertificateAuthority('another CA', now, new Date(now.getTime() + 400 * 24 * HOUR));
    assert.equal(await clientAccepts(stranger, issued, 'clinic-pc'), 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });
});

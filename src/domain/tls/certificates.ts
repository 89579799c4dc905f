// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API
// (a polyfill the library's README asks its user to load first, before the library itself).
import 'reflect-metadata';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import type { webcrypto } from 'node:crypto';
import type { TlsName } from './tls-names.js';

/**
 * The making of the clinic's certificates, with @peculiar/x509 (X.509 and ASN.1 in TypeScript)
 * over the runtime's own WebCrypto: keys are made and signatures computed by Node's OpenSSL, in
 * clinic.exe as in dist/clinic; nothing is run outside the program (a Windows PC has no openssl).
 * Keys are ECDSA P-256 signing with SHA-256: what every TLS client of the last decade takes
 * (Windows since Vista, browsers, curl, Node), made at once where RSA-2048 takes a while.
 */

/** A certificate and its private key, both PEM (the key as PKCS #8, `BEGIN PRIVATE KEY`). */
export interface PemPair {
  certificatePem: string;
  keyPem: string;
}

/** The key algorithm of every key made here. */
const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };

/** How every certificate made here is signed. */
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

/** The runtime's WebCrypto, named once: the library is given it explicitly, never a global it looks for. */
const webCrypto = (): webcrypto.Crypto => globalThis.crypto;

/** A new key pair; the private key exportable once, to be written to its file. */
async function newKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webCrypto().subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

/** The private key as PKCS #8 PEM, the form Node's TLS and OpenSSL read. */
async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = await webCrypto().subtle.exportKey('pkcs8', key);
  return PemConverter.encode(der, 'PRIVATE KEY');
}

/** The validity of a certificate made `now`: from an hour before (a client whose clock is a little behind still takes it) to `notAfter`. */
const validity = (now: Date, notAfter: Date) => ({ notBefore: new Date(now.getTime() - 60 * 60 * 1000), notAfter });

/**
 * A new private certificate authority named `commonName`, valid until `notAfter`: a CA that may
 * sign server certificates but no other CA (path length 0), and nothing but certificates and
 * revocation lists (key usage keyCertSign, cRLSign, both critical as RFC 5280 asks of a CA).
 * Its serial number is 128 random bits (the library's default when none is given).
 */
export async function createCertificateAuthority(commonName: string, now: Date, notAfter: Date): Promise<PemPair> {
  const keys = await newKeyPair();
  const crypto = webCrypto();
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      name: [{ CN: [commonName] }, { O: ['clinic'] }],
      ...validity(now, notAfter),
      signingAlgorithm: SIGNING_ALGORITHM,
      keys,
      extensions: [
        new BasicConstraintsExtension(true, 0, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await AuthorityKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { certificatePem: certificate.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/**
 * A new server certificate for `names` (as subject alternative names: DNS names as dNSName, IP
 * addresses as iPAddress, which is what clients compare; the first name is also the common name
 * for old tools that show only that), signed by `ca`, valid until `notAfter`: no CA (basic
 * constraints CA:false), for TLS servers only (key usage digitalSignature, the one an ECDSA key
 * needs, and extended key usage serverAuth), with key identifiers linking it to the CA's key.
 */
export async function issueServerCertificate(ca: PemPair, names: readonly TlsName[], now: Date, notAfter: Date): Promise<PemPair> {
  const crypto = webCrypto();
  const caCertificate = new X509Certificate(ca.certificatePem);
  const caKey = await crypto.subtle.importKey('pkcs8', PemConverter.decodeFirst(ca.keyPem), KEY_ALGORITHM, false, ['sign']);
  const keys = await newKeyPair();
  const certificate = await X509CertificateGenerator.create(
    {
      subject: [{ CN: [names[0]?.value ?? 'localhost'] }, { O: ['clinic'] }],
      issuer: caCertificate.subjectName,
      ...validity(now, notAfter),
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: keys.publicKey,
      signingKey: caKey,
      extensions: [
        new BasicConstraintsExtension(false, undefined, true),
        new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
        new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth], false),
        new SubjectAlternativeNameExtension(
          names.map((name) => ({ type: name.kind, value: name.value })),
          false,
        ),
        await SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await AuthorityKeyIdentifierExtension.create(await caCertificate.publicKey.export(crypto), false, crypto),
      ],
    },
    crypto,
  );
  return { certificatePem: certificate.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

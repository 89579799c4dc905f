import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { HAS_MODES, SHARED_FOLDER_MODE } from '../../../src/db/file-modes.js';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from '../../../src/domain/tls/certificates.js';
import {
  CERTIFICATE_FILE_MODE,
  KEY_FILE_MODE,
  makeTlsFolder,
  readCaFingerprint,
  readCertificate,
  readPrivateKey,
  requireCurrent,
  requireKeyOf,
  tlsPaths,
  writeTlsFile,
} from '../../../src/domain/tls/tls-files.js';
import { LOOPBACK_NAMES } from '../../../src/domain/tls/tls-names.js';
import { AppError } from '../../../src/errors.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';

// The TLS files of a data directory (clinic-api-1.2.md, Network, "TLS"): `tls/ca.pem`, its key
// 0600, `tls/server.pem` and its key 0600, as `tls init` writes them and `serve` reads them.

const newDir = useDataDirs();
const REMEDY = 'Run clinic tls init again.';
const NOW = new Date('2026-11-30T10:00:00Z');
const refusal = (error: unknown) => (error instanceof AppError ? [error.code, error.message] : [String(error)]);

describe('the TLS files', () => {
  let ca: PemPair;
  let server: PemPair;
  before(async () => {
    ca = await createCertificateAuthority('test CA', NOW, new Date('2036-11-30T10:00:00Z'));
    server = await issueServerCertificate(ca, LOOPBACK_NAMES, NOW, new Date('2027-11-30T10:00:00Z'));
  });

  /** `text` written to a new file named `name`; its path. */
  const fileWith = (name: string, text: string) => {
    const path = join(newDir(), name);
    writeFileSync(path, text);
    return path;
  };

  it('are read as serve reads them: a chain by its first certificate, and each fault refused naming the file and the remedy', () => {
    const chain = readCertificate(fileWith('server.pem', `${server.certificatePem}\n${ca.certificatePem}`), REMEDY);
    assert.equal(chain.certificate.fingerprint256, new X509Certificate(server.certificatePem).fingerprint256, 'the leaf');
    const notACertificate = fileWith('server.pem', server.keyPem);
    assert.deepEqual(refusal(thrownBy(() => readCertificate(notACertificate, REMEDY))), [
      'TLS_FILE_UNREADABLE',
      `The TLS file ${notACertificate} cannot be used: it holds no certificate (PEM, "BEGIN CERTIFICATE"). ${REMEDY}`,
    ]);
    const missing = join(newDir(), 'server-key.pem');
    assert.deepEqual(refusal(thrownBy(() => readPrivateKey(missing, REMEDY))), [
      'TLS_FILE_UNREADABLE',
      `The TLS file ${missing} cannot be used: there is no such file (ENOENT). ${REMEDY}`,
    ]);
  });

  it('refuse a key serve cannot use: encrypted (no one is there to type its passphrase), or of another certificate', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const encrypted = fileWith(
      'server-key.pem',
      privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }) as string,
    );
    assert.match(
      refusal(thrownBy(() => readPrivateKey(encrypted, REMEDY))).join(' '),
      /^TLS_FILE_UNREADABLE .*holds no unencrypted private key/,
    );
    const certificate = new X509Certificate(server.certificatePem);
    assert.doesNotThrow(() =>
      requireKeyOf('server.pem', certificate, 'server-key.pem', readPrivateKey(fileWith('k', server.keyPem), REMEDY).key, REMEDY),
    );
    assert.deepEqual(refusal(thrownBy(() => requireKeyOf('server.pem', certificate, 'ca-key.pem', privateKey, REMEDY))), [
      'TLS_KEY_MISMATCH',
      `The key ca-key.pem is not the key of the certificate server.pem. ${REMEDY}`,
    ]);
  });

  it('hold a certificate current from its first second to its last, and not one millisecond outside', () => {
    const certificate = new X509Certificate(server.certificatePem);
    const [notBefore, notAfter] = [new Date(certificate.validFrom), new Date(certificate.validTo)];
    for (const now of [notBefore, notAfter])
      assert.doesNotThrow(() => requireCurrent('server.pem', certificate, now, REMEDY), now.toISOString());
    assert.deepEqual(refusal(thrownBy(() => requireCurrent('server.pem', certificate, new Date(notAfter.getTime() + 1), REMEDY))), [
      'TLS_CERTIFICATE_EXPIRED',
      `The certificate server.pem expired at 2027-11-30T10:00:00.000Z. ${REMEDY}`,
    ]);
    const early = refusal(thrownBy(() => requireCurrent('server.pem', certificate, new Date(notBefore.getTime() - 1), REMEDY)));
    assert.equal(early[0], 'TLS_CERTIFICATE_NOT_YET_VALID');
    assert.ok(early[1]!.includes('2026-11-30T09:00:00.000Z'), early[1]);
  });

  it(
    'are written whole with their mode exactly, whatever the umask: keys 0600, certificates 0660',
    { skip: !HAS_MODES && 'no modes on Windows' },
    async () => {
      const paths = tlsPaths(newDir());
      await makeTlsFolder(paths);
      const before = process.umask(0o077);
      try {
        await writeTlsFile(paths.key, server.keyPem, KEY_FILE_MODE);
        process.umask(0);
        await writeTlsFile(paths.certificate, server.certificatePem, CERTIFICATE_FILE_MODE);
      } finally {
        process.umask(before);
      }
      assert.deepEqual(
        [statSync(paths.key).mode & 0o777, statSync(paths.certificate).mode & 0o777, statSync(paths.folder).mode & 0o7777],
        [0o600, 0o660, SHARED_FOLDER_MODE],
      );
      assert.equal(readFileSync(paths.key, 'utf8'), server.keyPem);
    },
  );

  it('replace a link put in place of one of them, never writing through it, and refuse a link or a file in place of tls/', async () => {
    const dataDir = newDir();
    const paths = tlsPaths(dataDir);
    mkdirSync(paths.folder);
    const elsewhere = join(newDir(), 'authorized_keys');
    writeFileSync(elsewhere, 'not to be overwritten');
    symlinkSync(elsewhere, paths.caKey);
    await writeTlsFile(paths.caKey, ca.keyPem, KEY_FILE_MODE);
    assert.equal(readFileSync(elsewhere, 'utf8'), 'not to be overwritten');
    assert.equal(readFileSync(paths.caKey, 'utf8'), ca.keyPem);

    const linked = tlsPaths(newDir());
    symlinkSync(newDir(), linked.folder);
    await assert.rejects(makeTlsFolder(linked), (error) => refusal(error)[0] === 'DATA_DIRECTORY_UNSAFE');
    const file = tlsPaths(newDir());
    writeFileSync(file.folder, '');
    await assert.rejects(makeTlsFolder(file), (error) => refusal(error)[0] === 'DATA_DIRECTORY_UNUSABLE');
  });

  it("give the CA's fingerprint as tls init prints it, and none without a readable ca.pem", async () => {
    const dataDir = newDir();
    assert.equal(readCaFingerprint(dataDir), undefined);
    const paths = tlsPaths(dataDir);
    await makeTlsFolder(paths);
    writeFileSync(paths.ca, 'damaged');
    assert.equal(readCaFingerprint(dataDir), undefined);
    writeFileSync(paths.ca, ca.certificatePem);
    assert.match(readCaFingerprint(dataDir) ?? '', /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.equal(readCaFingerprint(dataDir), new X509Certificate(ca.certificatePem).fingerprint256);
  });
});

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HAS_MODES } from '../../../src/db/file-modes.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { CA_VALIDITY_YEARS, initTls, SERVER_VALIDITY_DAYS } from '../../../src/domain/tls/init-tls.js';
import { tlsPaths } from '../../../src/domain/tls/tls-files.js';
import { AppError } from '../../../src/errors.js';
import { useDataDirs } from '../../helpers/fixtures.js';

// `clinic tls init [--name NAME]… [--new-ca]` (clinic-api-1.2.md, Network, "TLS"): the private CA
// once, a server certificate each run; the desk's printout is test/cli/commands/tls.test.ts.

const newDir = useDataDirs();
const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-11-30T10:00:00Z');
const CLINIC_PC = { kind: 'dns', value: 'clinic-pc' } as const;

/** A data directory with its clinic database. */
function clinicDir(): string {
  const dataDir = newDir();
  openDatabase(dataDir).close();
  return dataDir;
}

/** The server certificate `tls init` left in `dataDir`. */
const serverCertificate = (dataDir: string) => new X509Certificate(readFileSync(tlsPaths(dataDir).certificate));

describe('initTls', () => {
  it('makes the CA and a server certificate for the names given plus this PC, valid 825 days, keys 0600', async () => {
    const dataDir = clinicDir();
    const paths = tlsPaths(dataDir);
    const result = await initTls(dataDir, [CLINIC_PC, { kind: 'ip', value: '192.168.1.20' }], { newCa: false, now: NOW });
    const ca = new X509Certificate(readFileSync(paths.ca));
    assert.deepEqual(result, {
      ca_file: paths.ca,
      ca_sha256: ca.fingerprint256,
      ca_created: true,
      ca_replaced: false,
      ca_not_after: `${NOW.getUTCFullYear() + CA_VALIDITY_YEARS}-11-30T10:00:00.000Z`,
      server_certificate_file: paths.certificate,
      server_key_file: paths.key,
      names: ['clinic-pc', '192.168.1.20', 'localhost', '127.0.0.1', '::1'],
      not_after: new Date(NOW.getTime() + SERVER_VALIDITY_DAYS * DAY).toISOString(),
    });
    assert.ok(serverCertificate(dataDir).verify(ca.publicKey), 'issued by the CA');
    if (HAS_MODES) {
      const modes = [paths.caKey, paths.key, paths.ca, paths.certificate].map((path) => statSync(path).mode & 0o777);
      assert.deepEqual(modes, [0o600, 0o600, 0o660, 0o660]);
    }
  });

  it('keeps the CA other PCs already trust when run again, and replaces it only with --new-ca', async () => {
    const dataDir = clinicDir();
    const first = await initTls(dataDir, [CLINIC_PC], { newCa: false, now: NOW });
    const again = await initTls(dataDir, [CLINIC_PC, { kind: 'ip', value: '10.0.0.5' }], { newCa: false, now: NOW });
    assert.deepEqual([again.ca_sha256, again.ca_created, again.ca_replaced], [first.ca_sha256, false, false]);
    assert.equal(serverCertificate(dataDir).subjectAltName?.includes('IP Address:10.0.0.5'), true);
    const replaced = await initTls(dataDir, [], { newCa: true, now: NOW });
    assert.deepEqual([replaced.ca_created, replaced.ca_replaced], [true, true]);
    assert.notEqual(replaced.ca_sha256, first.ca_sha256);
    assert.ok(serverCertificate(dataDir).verify(new X509Certificate(readFileSync(tlsPaths(dataDir).ca)).publicKey), 'issued by the new CA');
  });

  it('never issues a server certificate past the end of its CA', async () => {
    const dataDir = clinicDir();
    const first = await initTls(dataDir, [CLINIC_PC], { newCa: false, now: NOW });
    const late = new Date(Date.parse(first.ca_not_after) - 100 * DAY);
    const renewed = await initTls(dataDir, [CLINIC_PC], { newCa: false, now: late });
    assert.equal(renewed.not_after, first.ca_not_after);
  });

  it('refuses a CA past its end, naming ca.pem and the way out, and writes nothing', async () => {
    const dataDir = clinicDir();
    const first = await initTls(dataDir, [CLINIC_PC], { newCa: false, now: NOW });
    const before = readFileSync(tlsPaths(dataDir).certificate, 'utf8');
    const after = new Date(Date.parse(first.ca_not_after) + DAY);
    await assert.rejects(initTls(dataDir, [CLINIC_PC], { newCa: false, now: after }), (error) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, 'TLS_CERTIFICATE_EXPIRED');
      assert.ok(error.message.includes(tlsPaths(dataDir).ca) && error.message.includes('clinic tls init --new-ca'), error.message);
      return true;
    });
    assert.equal(readFileSync(tlsPaths(dataDir).certificate, 'utf8'), before);
  });

  it('refuses a folder without a clinic database (NO_DATABASE), making no tls/ there', async () => {
    const folder = newDir();
    await assert.rejects(
      initTls(folder, [], { newCa: false, now: NOW }),
      (error) => error instanceof AppError && error.code === 'NO_DATABASE',
    );
    assert.equal(existsSync(join(folder, 'tls')), false);
  });
});

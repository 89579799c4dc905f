import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from '../../../src/domain/tls/certificates.js';
import { expiresSoon, findTlsFiles, loadServerTls, type TlsFiles } from '../../../src/domain/tls/server-tls.js';
import { tlsPaths } from '../../../src/domain/tls/tls-files.js';
import type { TlsName } from '../../../src/domain/tls/tls-names.js';
import { AppError } from '../../../src/errors.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { thrownBy } from '../../helpers/thrown.js';

// What `serve` serves HTTPS with (clinic-api-1.2.md, Network, "TLS"): the files given or those of
// `tls init`, checked once at its start so that no client has to say what is wrong with them.

const newDir = useDataDirs();
const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-11-30T10:00:00Z');
const NOT_AFTER = new Date('2027-11-30T10:00:00Z');
const codeOf = (error: unknown) => (error instanceof AppError ? error.code : String(error));

describe("serve's TLS", () => {
  let ca: PemPair;
  before(async () => {
    ca = await createCertificateAuthority('test CA', NOW, new Date('2036-11-30T10:00:00Z'));
  });

  /** The data directory's TLS files of a new certificate for `names` (each file only where named in `files`); the data directory. */
  async function dataDirWith(names: readonly TlsName[], files: readonly ('certificate' | 'key')[] = ['certificate', 'key']) {
    const dataDir = newDir();
    const paths = tlsPaths(dataDir);
    mkdirSync(paths.folder);
    const issued = await issueServerCertificate(ca, names, NOW, NOT_AFTER);
    if (files.includes('certificate')) writeFileSync(paths.certificate, issued.certificatePem);
    if (files.includes('key')) writeFileSync(paths.key, issued.keyPem);
    return { dataDir, files: { certificate: paths.certificate, key: paths.key, source: 'data' } satisfies TlsFiles };
  }

  it("uses the files given, else the data directory's pair, else none (plain HTTP); refuses one of the pair alone, naming the other", async () => {
    const { dataDir, files } = await dataDirWith([{ kind: 'dns', value: 'clinic-pc' }]);
    const given = { certificate: '/etc/clinic/cert.pem', key: '/etc/clinic/key.pem' };
    assert.deepEqual(findTlsFiles(dataDir, given), { ...given, source: 'given' });
    assert.deepEqual(findTlsFiles(dataDir, undefined), files);
    assert.equal(findTlsFiles(newDir(), undefined), undefined);
    const half = await dataDirWith([{ kind: 'dns', value: 'clinic-pc' }], ['certificate']);
    const refused = thrownBy(() => findTlsFiles(half.dataDir, undefined));
    assert.equal(codeOf(refused), 'TLS_FILE_UNREADABLE');
    assert.match(
      (refused as AppError).message,
      new RegExp(`^The TLS file ${half.files.key} cannot be used: there is no such file\\. .*clinic tls init`),
    );
  });

  it('serves a certificate that covers the --host address or name, and gives the names clients may use, wildcards left out', async () => {
    const { files } = await dataDirWith([
      { kind: 'dns', value: 'clinic-pc' },
      { kind: 'dns', value: '*.praxis.lan' },
      { kind: 'ip', value: '192.168.1.20' },
      { kind: 'ip', value: '::1' },
    ]);
    for (const host of ['clinic-pc', '192.168.1.20', '[::1]', '::1', 'empfang.praxis.lan', '0.0.0.0', '::']) {
      const tls = loadServerTls(files, host, NOW);
      assert.deepEqual([tls.notAfter, tls.hostNames], [NOT_AFTER, ['clinic-pc', '192.168.1.20', '0:0:0:0:0:0:0:1']], host);
    }
    const tls = loadServerTls(files, 'clinic-pc', NOW);
    assert.equal(tls.names, 'DNS:clinic-pc, DNS:*.praxis.lan, IP Address:192.168.1.20, IP Address:0:0:0:0:0:0:0:1');
    assert.match(tls.certificatePem.toString(), /^-----BEGIN CERTIFICATE-----/);
    assert.match(tls.keyPem.toString(), /^-----BEGIN PRIVATE KEY-----/);
  });

  it('refuses a certificate that covers neither the --host address nor an --allowed-host name, a wildcard matching one label only', async () => {
    const { files } = await dataDirWith([
      { kind: 'dns', value: 'clinic.praxis.lan' },
      { kind: 'dns', value: '*.praxis.lan' },
    ]);
    for (const host of ['192.168.1.20', 'a.b.praxis.lan', '127.0.0.1']) {
      assert.equal(codeOf(thrownBy(() => loadServerTls(files, host, NOW))), 'TLS_CERTIFICATE_NAME_MISMATCH', host);
    }
    assert.doesNotThrow(() => loadServerTls(files, '192.168.1.20', NOW, ['clinic.praxis.lan']), 'the name clients use');
  });

  it('refuses a key of another certificate before anything else, and a certificate outside its validity, with the remedy for where it came from', async () => {
    const one = await dataDirWith([{ kind: 'dns', value: 'clinic-pc' }]);
    const other = await dataDirWith([{ kind: 'dns', value: 'clinic-pc' }]);
    const crossed = { certificate: one.files.certificate, key: other.files.key, source: 'given' } as const;
    const mismatch = thrownBy(() => loadServerTls(crossed, 'clinic-pc', new Date(NOT_AFTER.getTime() + DAY)));
    assert.equal(codeOf(mismatch), 'TLS_KEY_MISMATCH');
    assert.match((mismatch as AppError).message, /Give --tls-cert and --tls-key files that are current/);
    const expired = thrownBy(() => loadServerTls(one.files, 'clinic-pc', new Date(NOT_AFTER.getTime() + 1000)));
    assert.equal(codeOf(expired), 'TLS_CERTIFICATE_EXPIRED');
    assert.match((expired as AppError).message, /Run `clinic tls init` again/);
    assert.equal(
      codeOf(thrownBy(() => loadServerTls(one.files, 'clinic-pc', new Date(NOW.getTime() - 2 * 60 * 60 * 1000)))),
      'TLS_CERTIFICATE_NOT_YET_VALID',
    );
  });

  it('warns within the last 30 days of a certificate, not a millisecond before', async () => {
    const tls = loadServerTls((await dataDirWith([{ kind: 'dns', value: 'clinic-pc' }])).files, 'clinic-pc', NOW);
    assert.equal(expiresSoon(tls, new Date(NOT_AFTER.getTime() - 30 * DAY)), false);
    assert.equal(expiresSoon(tls, new Date(NOT_AFTER.getTime() - 30 * DAY + 1)), true);
    assert.equal(expiresSoon(tls, NOW), false);
  });
});

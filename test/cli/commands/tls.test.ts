import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { get, type RequestOptions } from 'node:https';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isLoopback } from '../../../src/server/clinic-server.js';
import { createCertificateAuthority, issueServerCertificate, type PemPair } from '../../../src/domain/tls/certificates.js';
import type { TlsInitResult as TlsInit } from '../../../src/domain/tls/init-tls.js';
import type { TlsName } from '../../../src/domain/tls/tls-names.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import {
  programPath,
  programPlatform,
  runClinic,
  spawnClinic,
  startServeProcess,
  STOP_SIGNAL,
  type CliResult,
  type ServeProcess,
} from '../../helpers/run-cli.js';

const newDir = useDataDirs();
const DAY = 24 * 60 * 60 * 1000;
const HEALTH = '/api/public/v1/health';

/** A new data directory with a database (`clinic init`), as tls init wants it. */
async function newClinic(): Promise<string> {
  const dataDir = newDir();
  assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
  return dataDir;
}

/** Runs `clinic tls init --json <args>` on `dataDir`, which must succeed. */
async function tlsInit(dataDir: string, args: readonly string[] = []): Promise<TlsInit> {
  const result = await runClinic(['tls', 'init', '--json', '--data', dataDir, ...args]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as TlsInit;
}

/** The files of `<dataDir>/tls`. */
const tlsFile = (dataDir: string, name: string) => join(dataDir, 'tls', name);
const certificateOf = (path: string) => new X509Certificate(readFileSync(path));

/** `curl <args>`: its exit code, output and error output (the system's curl: npm run test:dist leaves only the program on PATH). */
function curl(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin' };
  return new Promise((resolve) => {
    execFile('curl', ['--silent', '--show-error', '--max-time', '20', ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr }),
    );
  });
}

/** GET `url` with node:https: the status, or the error's code and message. */
function httpsGet(url: string, options: RequestOptions): Promise<{ status?: number; error?: { code?: string; message: string } }> {
  return new Promise((resolve) => {
    const request = get(url, options, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode! }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: { code: error.code, message: error.message } }));
  });
}

/** The port of a running serve, from its listening line. */
const portOf = (serve: ServeProcess) => new URL(serve.baseUrl).port;

/** Stops a serve process and waits for it to end. */
async function stop(serve: ServeProcess): Promise<void> {
  serve.child.kill(STOP_SIGNAL);
  await serve.exited;
}

/**
 * Runs `clinic serve --port 0 <args>`, expected to refuse at start-up: its exit code and output. A
 * server that starts instead is stopped at once (its exit code 0 then fails the test), rather
 * than left to run until the test times out.
 */
function refusedServe(args: readonly string[], env?: Record<string, string>): Promise<CliResult> {
  const child = spawnClinic(['serve', '--port', '0', ...args], env === undefined ? {} : { env });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.includes('"event":"listening"')) child.kill(STOP_SIGNAL);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** A CA and a certificate of it, made in the test with the library the program uses; written to files in `dir`. */
async function writeTestCertificate(
  dir: string,
  options: { names: TlsName[]; now?: Date; notAfter?: Date; ca?: PemPair },
): Promise<{ cert: string; key: string; ca: PemPair }> {
  const now = options.now ?? new Date();
  const ca =
    options.ca ?? (await createCertificateAuthority('test CA', new Date(now.getTime() - 1000 * DAY), new Date(now.getTime() + 3650 * DAY)));
  const server = await issueServerCertificate(ca, options.names, now, options.notAfter ?? new Date(now.getTime() + 365 * DAY));
  const stem = join(dir, `cert-${Math.random().toString(36).slice(2)}`);
  writeFileSync(`${stem}.pem`, server.certificatePem);
  writeFileSync(`${stem}-key.pem`, server.keyPem);
  return { cert: `${stem}.pem`, key: `${stem}-key.pem`, ca };
}

const LOCALHOST: TlsName[] = [
  { kind: 'dns', value: 'localhost' },
  { kind: 'ip', value: '127.0.0.1' },
];

describe('clinic tls init', { timeout: 180_000 }, () => {
  it('writes the CA and a server certificate for the names given plus localhost, 127.0.0.1 and ::1, keys 0600, and prints the CA fingerprint', async () => {
    const dataDir = await newClinic();
    const made = await tlsInit(dataDir, ['--name', 'clinic-pc.praxis.lan', '--name', '192.168.1.20']);
    const ca = certificateOf(tlsFile(dataDir, 'ca.pem'));
    const server = certificateOf(tlsFile(dataDir, 'server.pem'));
    assert.equal(made.ca_sha256, ca.fingerprint256);
    assert.equal(made.ca_file, programPath(tlsFile(dataDir, 'ca.pem')));
    assert.equal(made.server_certificate_file, programPath(tlsFile(dataDir, 'server.pem')));
    assert.equal(made.ca_created, true);
    assert.deepEqual(made.names, ['clinic-pc.praxis.lan', '192.168.1.20', 'localhost', '127.0.0.1', '::1']);
    assert.equal(
      server.subjectAltName,
      'DNS:clinic-pc.praxis.lan, IP Address:192.168.1.20, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    assert.equal(server.checkIP('192.168.1.20'), '192.168.1.20');
    assert.equal(server.checkIP('::1'), '::1');
    // A CA that signs server certificates only, and a server certificate that signs nothing.
    assert.equal(ca.ca, true);
    assert.equal(server.ca, false);
    assert.ok(server.checkIssued(ca) && server.verify(ca.publicKey));
    assert.match(ca.subject, /^CN=clinic private CA .+ \d{4}-\d{2}-\d{2}\nO=clinic$/);
    assert.ok(new Date(made.not_after).getTime() - Date.now() <= 825 * DAY);
    assert.ok(new Date(made.ca_not_after).getTime() - Date.now() > 3650 * DAY - 3 * DAY);
    if (programPlatform !== 'win32') {
      const mode = (name: string) => (statSync(tlsFile(dataDir, name)).mode & 0o777).toString(8);
      assert.deepEqual(['ca-key.pem', 'server-key.pem', 'ca.pem', 'server.pem'].map(mode), ['600', '600', '660', '660']);
    }
    const people = await runClinic(['tls', 'init', '--data', dataDir]);
    assert.equal(people.code, 0, people.stderr);
    assert.match(people.stdout, /^Kept the clinic's private CA: /);
    assert.ok(
      people.stdout.includes(`\n  ${programPath(tlsFile(dataDir, 'ca.pem'))}\nwhose SHA-256 fingerprint is\n  ${ca.fingerprint256}\n`),
    );
    assert.match(people.stdout, /docs\/install\.md/);
    // Issue 42, finding 4: what changes at the next start is said.
    assert.ok(
      people.stdout.includes(
        '`clinic serve` uses it from its next start (restart it if it runs): its port then speaks HTTPS,\n' +
          'and plain HTTP to programs on this PC only (http://127.0.0.1 and http://[::1] keep working);\n' +
          'plain HTTP from another PC gets a 400 naming the https:// address.\n',
      ),
      people.stdout,
    );
  });

  it('keeps the CA when run again: same fingerprint, and the new server certificate verifies against it; --new-ca replaces it', async () => {
    const dataDir = await newClinic();
    const first = await tlsInit(dataDir, ['--name', 'clinic-pc']);
    const firstServer = certificateOf(tlsFile(dataDir, 'server.pem'));
    const again = await tlsInit(dataDir, ['--name', 'clinic-pc', '--name', '10.0.0.5']);
    const ca = certificateOf(tlsFile(dataDir, 'ca.pem'));
    const server = certificateOf(tlsFile(dataDir, 'server.pem'));
    assert.equal(again.ca_created, false);
    assert.equal(again.ca_sha256, first.ca_sha256);
    assert.equal(ca.fingerprint256, first.ca_sha256);
    assert.notEqual(server.serialNumber, firstServer.serialNumber);
    assert.ok(server.checkIssued(ca) && server.verify(ca.publicKey));
    assert.equal(server.checkIP('10.0.0.5'), '10.0.0.5');
    const replaced = await tlsInit(dataDir, ['--new-ca']);
    assert.equal(replaced.ca_created, true);
    assert.equal(replaced.ca_replaced, true);
    assert.notEqual(replaced.ca_sha256, first.ca_sha256);
    assert.ok(certificateOf(tlsFile(dataDir, 'server.pem')).verify(certificateOf(tlsFile(dataDir, 'ca.pem')).publicKey));
  });

  it('refuses to issue from a CA whose key is missing, naming the file, and changes nothing', async () => {
    const dataDir = await newClinic();
    await tlsInit(dataDir);
    const before = readFileSync(tlsFile(dataDir, 'server.pem'), 'utf8');
    unlinkSync(tlsFile(dataDir, 'ca-key.pem'));
    const refused = await runClinic(['tls', 'init', '--data', dataDir, '--json']);
    assert.equal(refused.code, 1);
    const { detail } = JSON.parse(refused.stderr) as { detail: { code: string; message: string } };
    assert.equal(detail.code, 'TLS_FILE_UNREADABLE');
    assert.ok(detail.message.includes(programPath(tlsFile(dataDir, 'ca-key.pem'))), detail.message);
    assert.match(detail.message, /--new-ca/);
    assert.equal(readFileSync(tlsFile(dataDir, 'server.pem'), 'utf8'), before);
  });

  it('refuses a folder without a clinic database, making nothing there', async () => {
    const missing = join(newDir(), 'mistyped');
    const refused = await runClinic(['tls', 'init', '--name', 'clinic-pc', '--data', missing]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: NO_DATABASE: /);
    assert.equal(existsSync(missing), false);
  });

  it('refuses a --name that is neither a host name nor an IP address as a usage error', async () => {
    for (const name of ['clinic_pc', '*.praxis.lan', '192.168.1', 'a..b']) {
      const refused = await runClinic(['tls', 'init', '--name', name, '--data', newDir()]);
      assert.equal(refused.code, 2, name);
      assert.match(refused.stderr, /option '--name <name>' argument .* is invalid/, name);
    }
  });
});

describe('clinic serve over HTTPS', { timeout: 180_000 }, () => {
  it('serves the files of tls init over HTTPS: curl and node:https with the CA are answered, without it they refuse, TLS 1.1 is refused; plain HTTP from 127.0.0.1 on the same port too', async () => {
    const dataDir = await newClinic();
    await tlsInit(dataDir, ['--name', 'clinic-pc']);
    const caFile = tlsFile(dataDir, 'ca.pem');
    const serve = await startServeProcess(['--data', dataDir]);
    try {
      assert.match(serve.baseUrl, /^https:\/\/127\.0\.0\.1:\d+\/api\/public\/v1$/);
      const tls = serve.logLines.find((line) => line.event === 'tls');
      assert.equal(tls?.certificate, programPath(tlsFile(dataDir, 'server.pem')));
      assert.equal(typeof tls?.not_after, 'string');
      const port = portOf(serve);
      for (const host of ['localhost', '127.0.0.1']) {
        const answered = await curl(['--cacert', caFile, `https://${host}:${port}${HEALTH}`]);
        assert.equal(answered.code, 0, answered.stderr);
        assert.equal(JSON.parse(answered.stdout).status, 'ok');
      }
      // Issue 42, finding 4: the PC's own integrations keep their plain http://127.0.0.1 on the same port.
      const plain = await curl([`http://127.0.0.1:${port}${HEALTH}`]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(JSON.parse(plain.stdout).status, 'ok');
      const untrusted = await curl([`https://127.0.0.1:${port}${HEALTH}`]);
      assert.equal(untrusted.code, 60, untrusted.stderr); // CURLE_PEER_FAILED_VERIFICATION
      const tls12 = await curl(['--cacert', caFile, '--tlsv1.2', '--tls-max', '1.2', `https://127.0.0.1:${port}${HEALTH}`]);
      assert.equal(tls12.code, 0, tls12.stderr);
      // The server's own alert: it speaks nothing older than TLS 1.2.
      const tls11 = await curl(['--cacert', caFile, '--tlsv1.1', '--tls-max', '1.1', `https://127.0.0.1:${port}${HEALTH}`]);
      assert.equal(tls11.code, 35, tls11.stderr); // CURLE_SSL_CONNECT_ERROR
      assert.match(tls11.stderr, /alert protocol version/);

      const ca = readFileSync(caFile);
      assert.deepEqual(await httpsGet(`https://localhost:${port}${HEALTH}`, { ca }), { status: 200 });
      assert.deepEqual(await httpsGet(`${serve.baseUrl.replace('/api/public/v1', '')}${HEALTH}`, { ca }), { status: 200 });
      const withoutCa = await httpsGet(`https://localhost:${port}${HEALTH}`, {});
      // The server sends its certificate and, from 1.3.0, the clinic's CA after it (a desk PC checks the CA by its
      // fingerprint): a CA this client's store does not hold, so it refuses the chain.
      assert.equal(withoutCa.error?.code, 'SELF_SIGNED_CERT_IN_CHAIN');
      // SECLEVEL=0 lets this client offer TLS 1.1 at all, so that the refusal is the server's.
      const old = await httpsGet(`https://localhost:${port}${HEALTH}`, {
        ca,
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      });
      assert.match(old.error?.message ?? '', /alert protocol version/);
    } finally {
      await stop(serve);
    }
  });

  it('serves --tls-cert and --tls-key (or CLINIC_TLS_CERT and CLINIC_TLS_KEY), and refuses one without the other as a usage error', async () => {
    const dir = newDir();
    const { cert, key, ca } = await writeTestCertificate(dir, { names: LOCALHOST });
    writeFileSync(join(dir, 'ca.pem'), ca.certificatePem);
    for (const [args, env] of [
      [['--tls-cert', cert, '--tls-key', key], undefined],
      [[], { CLINIC_TLS_CERT: cert, CLINIC_TLS_KEY: key }],
    ] as const) {
      const serve = await startServeProcess(['--data', join(dir, 'data'), ...args], env === undefined ? {} : { env });
      try {
        assert.match(serve.baseUrl, /^https:/);
        const answered = await curl(['--cacert', join(dir, 'ca.pem'), `https://localhost:${portOf(serve)}${HEALTH}`]);
        assert.equal(answered.code, 0, answered.stderr);
      } finally {
        await stop(serve);
      }
    }
    const alone = await refusedServe(['--tls-cert', cert, '--data', join(dir, 'data')]);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--tls-cert and --tls-key go together/);
  });

  it('refuses at start-up, naming the file: an expired certificate, one not yet valid, one for another name, a key of another certificate, a file that is no certificate', async () => {
    const dir = newDir();
    const now = Date.now();
    const expired = await writeTestCertificate(dir, { names: LOCALHOST, now: new Date(now - 400 * DAY), notAfter: new Date(now - DAY) });
    const early = await writeTestCertificate(dir, { names: LOCALHOST, now: new Date(now + 2 * DAY) });
    const otherName = await writeTestCertificate(dir, { names: [{ kind: 'dns', value: 'clinic.example' }] });
    const other = await writeTestCertificate(dir, { names: LOCALHOST });
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a certificate\n');
    const cases = [
      { files: [expired.cert, expired.key], code: 'TLS_CERTIFICATE_EXPIRED', names: expired.cert },
      { files: [early.cert, early.key], code: 'TLS_CERTIFICATE_NOT_YET_VALID', names: early.cert },
      { files: [otherName.cert, otherName.key], code: 'TLS_CERTIFICATE_NAME_MISMATCH', names: otherName.cert },
      { files: [other.cert, expired.key], code: 'TLS_KEY_MISMATCH', names: expired.key },
      { files: [garbage, other.key], code: 'TLS_FILE_UNREADABLE', names: garbage },
      { files: [other.cert, join(dir, 'missing.pem')], code: 'TLS_FILE_UNREADABLE', names: join(dir, 'missing.pem') },
    ];
    for (const { files, code, names } of cases) {
      const dataDir = join(dir, 'data');
      const refused = await refusedServe(['--tls-cert', files[0]!, '--tls-key', files[1]!, '--data', dataDir]);
      assert.equal(refused.code, 1, `${code}: ${refused.stderr}`);
      assert.match(refused.stderr, new RegExp(`^error: ${code}: `), code);
      assert.ok(refused.stderr.replace(/\n\s*/g, ' ').includes(programPath(names)), `${code}: ${refused.stderr}`);
      assert.equal(existsSync(dataDir), false, 'a refused start makes nothing');
    }
  });

  it('serves a certificate that covers an --allowed-host name, not the --host address: the name clients use', async () => {
    const dir = newDir();
    const named = await writeTestCertificate(dir, { names: [{ kind: 'dns', value: 'clinic.example' }] });
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, named.ca.certificatePem);
    const dataDir = await newClinic();
    const serve = await startServeProcess([
      '--tls-cert',
      named.cert,
      '--tls-key',
      named.key,
      '--allowed-host',
      'clinic.example',
      '--data',
      dataDir,
    ]);
    try {
      const port = portOf(serve);
      const answered = await curl([
        '--cacert',
        caFile,
        '--resolve',
        `clinic.example:${port}:127.0.0.1`,
        `https://clinic.example:${port}${HEALTH}`,
      ]);
      assert.equal(answered.code, 0, answered.stderr);
      assert.equal(JSON.parse(answered.stdout).status, 'ok');
    } finally {
      await stop(serve);
    }
  });

  it('refuses the data directory with only one of server.pem and server-key.pem, naming the missing one', async () => {
    const dataDir = await newClinic();
    await tlsInit(dataDir);
    unlinkSync(tlsFile(dataDir, 'server-key.pem'));
    const refused = await refusedServe(['--data', dataDir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: TLS_FILE_UNREADABLE: /);
    assert.ok(refused.stderr.replace(/\n\s*/g, ' ').includes(programPath(tlsFile(dataDir, 'server-key.pem'))), refused.stderr);
  });

  it('starts with a certificate in its last 30 days, and warns', async () => {
    const dir = newDir();
    const soon = await writeTestCertificate(dir, { names: LOCALHOST, notAfter: new Date(Date.now() + 10 * DAY) });
    const serve = await startServeProcess(['--tls-cert', soon.cert, '--tls-key', soon.key, '--data', join(dir, 'data')]);
    await stop(serve);
    assert.match(
      serve.output().stderr,
      /"event":"warning","warning":"the TLS certificate .* expires at .*, in less than 30 days; replace it, then restart serve"/,
    );
  });
});

describe('clinic serve --host off this PC', { timeout: 180_000 }, () => {
  it('refuses plain HTTP on 0.0.0.0 as TLS_REQUIRED, creating nothing; starts with --insecure-http, warning', async () => {
    const dataDir = join(newDir(), 'data');
    const refused = await refusedServe(['--host', '0.0.0.0', '--data', dataDir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: TLS_REQUIRED: /);
    assert.match(refused.stderr.replace(/\n\s*/g, ' '), /clinic tls init --name/);
    assert.equal(existsSync(dataDir), false);
    const insecure = await startServeProcess(['--host', '0.0.0.0', '--insecure-http', '--data', dataDir]);
    try {
      assert.match(insecure.baseUrl, /^http:\/\/0\.0\.0\.0:/);
      const listening = insecure.logLines.find((line) => line.event === 'listening');
      assert.match(String(listening?.warning), /other machines on the network can reach the API/);
      const answered = await curl([`http://127.0.0.1:${portOf(insecure)}${HEALTH}`]);
      assert.equal(answered.code, 0, answered.stderr);
    } finally {
      await stop(insecure);
    }
  });

  it('serves HTTPS on 0.0.0.0 with the files of tls init, answering the names of its certificate as its own', async () => {
    const dataDir = await newClinic();
    await tlsInit(dataDir, ['--name', 'clinic-pc']);
    const serve = await startServeProcess(['--host', '0.0.0.0', '--data', dataDir]);
    try {
      assert.match(serve.baseUrl, /^https:\/\/0\.0\.0\.0:/);
      const ca = tlsFile(dataDir, 'ca.pem');
      const port = portOf(serve);
      const answered = await curl(['--cacert', ca, `https://127.0.0.1:${port}${HEALTH}`]);
      assert.equal(answered.code, 0, answered.stderr);
      // The certificate's names are the server's names: a client on the LAN that types one is
      // answered without --allowed-host, and its page's own origin is the https one.
      const byName = ['--cacert', ca, '--resolve', `clinic-pc:${port}:127.0.0.1`, `https://clinic-pc:${port}${HEALTH}`];
      const named = await curl(['--write-out', '\n%{http_code}', ...byName, '--header', `Origin: https://clinic-pc:${port}`]);
      assert.equal(named.code, 0, named.stderr);
      assert.match(named.stdout, /\n200$/);
      const otherHost = await curl(['--write-out', '\n%{http_code}', ...byName, '--header', `Host: evil.example:${port}`]);
      assert.match(otherHost.stdout, /"HOST_NOT_ALLOWED"[^]*\n403$/);
      const plainOrigin = await curl(['--write-out', '\n%{http_code}', ...byName, '--header', `Origin: http://clinic-pc:${port}`]);
      assert.match(plainOrigin.stdout, /"ORIGIN_NOT_ALLOWED"[^]*\n403$/);
    } finally {
      await stop(serve);
    }
  });

  it('takes the whole of 127.0.0.0/8, ::1 and localhost as this PC, nothing else', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', 'localhost']) assert.equal(isLoopback(host), true, host);
    for (const host of ['0.0.0.0', '::', '128.0.0.1', '192.168.1.20', '127.example', 'clinic-pc'])
      assert.equal(isLoopback(host), false, host);
  });
});

import assert from 'node:assert/strict';
import { chmodSync, chownSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createCertificateAuthority, issueServerCertificate } from '../../../src/domain/tls/certificates.js';
import { LOOPBACK_NAMES } from '../../../src/domain/tls/tls-names.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { nobodySkipReason, programPlatform, runAsNobody, runClinic } from '../../helpers/run-cli.js';

/**
 * Issue 42, finding 5: `tls init` (or `restore`) run as root by mistake left a server that would
 * not start, while `clinic check` said all was well: it never looked at `tls/`. Now its
 * `tls_files` check names each file serve could not read, with the `chown -R` that mends them,
 * a key others could read, and a certificate past or near its expiry. The real program as a
 * child process, as root (as IT runs it by mistake, and as CI runs).
 */

const newDir = useDataDirs();
const DAY = 24 * 60 * 60 * 1000;
const NOBODY = 65534;

interface CheckReport {
  ok: boolean;
  checks: { name: string; status: string; findings: string[] }[];
}

/** `clinic check --json` on `dataDir`: its exit code and the tls_files check's findings. */
async function tlsCheck(dataDir: string): Promise<{ code: number; findings: string[] }> {
  const result = await runClinic(['check', '--json', '--data', dataDir]);
  const report = JSON.parse(result.stdout) as CheckReport;
  return { code: result.code, findings: report.checks.find((check) => check.name === 'tls_files')?.findings ?? ['(no tls_files check)'] };
}

/** A data directory made by init, with the files of tls init. */
async function clinicWithTls(): Promise<string> {
  const parent = newDir();
  // Other users may enter it, as /var/lib is: the server's user reaches its data directory.
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');
  assert.equal((await runClinic(['init', '--data', dataDir])).code, 0);
  const made = await runClinic(['tls', 'init', '--data', dataDir]);
  assert.equal(made.code, 0, made.stderr);
  return dataDir;
}

/** Gives `path` and everything under it to `uid` (chown -R). */
function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path, { recursive: true }) as string[]) chownSync(join(path, name), uid, uid);
}

const skip = (programPlatform === 'win32' && 'no owners or modes on Windows') || (process.getuid?.() !== 0 && 'needs root, as CI runs');

describe('clinic check looks at tls/ (issue 42, finding 5)', { skip, timeout: 180_000 }, () => {
  it("names tls/ files of another owner than the data directory's, as tls init run as root leaves them, with the chown -R that mends them", async () => {
    const dataDir = await clinicWithTls();
    // The server's data directory is its user's; tls/ was made by root, as by `sudo clinic tls init`.
    chownSync(dataDir, NOBODY, NOBODY);
    for (const name of readdirSync(dataDir)) if (name !== 'tls') chownTree(join(dataDir, name), NOBODY);
    const tls = join(dataDir, 'tls');
    const before = await tlsCheck(dataDir);
    assert.equal(before.code, 1);
    assert.equal(before.findings.length, 5, before.findings.join('\n'));
    for (const name of ['', 'ca.pem', 'ca-key.pem', 'server.pem', 'server-key.pem']) {
      const path = name === '' ? tls : join(tls, name);
      assert.ok(
        before.findings.some((finding) =>
          finding.startsWith(`${path} belongs to uid 0, not to the data directory's owner (uid ${NOBODY})`),
        ),
        `${path}: ${before.findings.join('\n')}`,
      );
    }
    assert.ok(before.findings.every((finding) => finding.endsWith(`; run chown -R ${NOBODY}:${NOBODY} ${tls}`)));
    assert.ok(before.findings.every((finding) => !finding.includes('--new-ca')));
    if (nobodySkipReason === false) {
      // tls init again, now as the server's user: refused, naming the file and the chown, not a new CA.
      const again = await runAsNobody(['tls', 'init', '--data', dataDir]);
      assert.equal(again.code, 1, again.stderr);
      const said = again.stderr.replace(/\n\s*/g, ' ');
      assert.match(said, /TLS_FILE_UNREADABLE: The TLS file .*ca\.pem cannot be used: the user running clinic may not read it/);
      assert.ok(said.includes(`(as root: chown -R clinic: ${tls})`), said);
      assert.ok(!said.includes('--new-ca'), said);
    }
    chownTree(tls, NOBODY);
    assert.deepEqual(await tlsCheck(dataDir), { code: 0, findings: [] }, 'the hint mends it');
  });

  it('names a key others could read, and a certificate expired or in its last 30 days, with the command that mends each', async () => {
    const dataDir = await clinicWithTls();
    const tls = join(dataDir, 'tls');
    chmodSync(join(tls, 'server-key.pem'), 0o640);
    const now = new Date();
    const ca = await createCertificateAuthority('check test CA', new Date(now.getTime() - 400 * DAY), new Date(now.getTime() + 400 * DAY));
    const soon = await issueServerCertificate(
      ca,
      LOOPBACK_NAMES,
      new Date(now.getTime() - 10 * DAY),
      new Date(now.getTime() + 10 * DAY + 3600_000),
    );
    writeFileSync(join(tls, 'server.pem'), soon.certificatePem);
    const first = await tlsCheck(dataDir);
    assert.equal(first.code, 1);
    assert.deepEqual(first.findings.length, 2, first.findings.join('\n'));
    assert.match(first.findings[0]!, /server-key\.pem has mode 0640: a private key must be its owner's alone; run chmod 600 on it$/);
    assert.match(
      first.findings[1]!,
      /server\.pem expires on \d{4}-\d{2}-\d{2}, in 11 days; run clinic tls init with the same --name options --data .+ \(it keeps the CA\), then restart serve$/,
    );

    const expired = await issueServerCertificate(ca, LOOPBACK_NAMES, new Date(now.getTime() - 100 * DAY), new Date(now.getTime() - DAY));
    writeFileSync(join(tls, 'server.pem'), expired.certificatePem);
    chmodSync(join(tls, 'server-key.pem'), 0o600);
    const second = await tlsCheck(dataDir);
    assert.equal(second.findings.length, 1, second.findings.join('\n'));
    assert.match(second.findings[0]!, /server\.pem expired on \d{4}-\d{2}-\d{2}: serve refuses to start with it; run clinic tls init /);
  });
});

import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { useTestDatabase } from '../helpers/fixtures.js';
import { runClinic, startServeProcess, STOP_SIGNAL, unwrapped, type CliResult, type ServeProcess } from '../helpers/run-cli.js';

/**
 * The desk on several PCs (interface 1.3.0, issue 45): a second "PC" is another OS user's
 * configuration folder on this machine, joined over TLS on a loopback address to a real `clinic
 * serve`; every command there is a real process, run on the server as its person.
 */
describe('clinic on a desk PC: join, log in, the desk day over HTTPS (interface 1.3.0)', { timeout: 600_000 }, () => {
  const data = useTestDatabase();
  const folders: string[] = [];
  const folder = (name: string) => {
    const made = mkdtempSync(join(tmpdir(), `clinic-${name}-`));
    folders.push(made);
    return made;
  };
  let serverPc: string;
  let deskPc: string;
  let serve: ServeProcess;
  let url: string;
  let fingerprint: string;

  const atServer = (args: string[], input?: string) =>
    runClinic([...args, '--data', data.dataDir], { env: { XDG_CONFIG_HOME: serverPc }, ...(input === undefined ? {} : { input }) });
  const atDesk = (args: string[], input?: string, configHome = deskPc) =>
    runClinic(args, { env: { XDG_CONFIG_HOME: configHome }, ...(input === undefined ? {} : { input }) });
  const ok = (result: CliResult) => {
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  const pair = async (name: string) =>
    JSON.parse(ok(await atServer(['desk', 'pair', '--name', name, '--url', url, '--json']))) as Record<string, string>;
  const addPerson = async (name: string, role: string, pin: string) => {
    const added = JSON.parse(ok(await atServer(['staff', 'add', '--name', name, '--role', role, '--json']))) as { setup_code: string };
    ok(await atServer(['staff', 'set-pin', '--as', name, '--pin-stdin'], `${added.setup_code}\n${pin}\n${pin}\n`));
  };

  before(async () => {
    serverPc = folder('server-pc');
    deskPc = folder('desk-pc');
    fingerprint = (JSON.parse(ok(await atServer(['tls', 'init', '--json']))) as { ca_sha256: string }).ca_sha256;
    await addPerson('Anna Admin', 'admin', '482913');
    await addPerson('Rita Reception', 'reception', '573920');
    // Setting Rita's PIN logged her in here: the server PC's admin pairs the PCs.
    ok(await atServer(['login', '--as', 'Anna Admin', '--pin-stdin'], '482913\n'));
    serve = await startServeProcess(['--host', '127.0.0.1', '--data', data.dataDir], { env: { XDG_CONFIG_HOME: serverPc } });
    url = new URL(serve.baseUrl).origin;
  });
  after(async () => {
    serve?.child.kill(STOP_SIGNAL);
    await serve?.exited;
    for (const made of folders) rmSync(made, { recursive: true, force: true });
  });

  it('presents the CA after the server certificate, as `tls init` printed its fingerprint', async () => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port), rejectUnauthorized: false });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    const chain = socket.getPeerCertificate(true);
    socket.destroy();
    assert.equal(new X509Certificate(chain.issuerCertificate.raw).fingerprint256, fingerprint);
  });

  it("joins with the line desk pair prints, keeps desk.json 0600 in the OS user's folder, and refuses a used code", async () => {
    const paired = await pair('Reception 2');
    assert.equal(paired.command, `clinic desk join ${url} ${paired.code} --ca-sha256 ${fingerprint}`);
    const joined = JSON.parse(
      ok(await atDesk(['desk', 'join', url, paired.code!, '--ca-sha256', fingerprint.replace(/:/g, '').toLowerCase(), '--json'])),
    );
    assert.deepEqual([joined.device_name, joined.server_url, joined.ca_sha256], ['Reception 2', url, fingerprint]);
    if (process.platform !== 'win32') {
      const { statSync } = await import('node:fs');
      assert.equal(statSync(join(deskPc, 'clinic', 'desk.json')).mode & 0o777, 0o600);
      assert.equal(statSync(join(deskPc, 'clinic')).mode & 0o777, 0o700);
    }
    const again = await atDesk(['desk', 'join', url, paired.code!, '--ca-sha256', fingerprint], undefined, folder('third-pc'));
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error: PAIRING_CODE_INVALID/);
    const twice = await atDesk(['desk', 'join', url, paired.code!, '--ca-sha256', fingerprint]);
    assert.match(twice.stderr, /^error: DESK_ALREADY_JOINED/);
    const notHttps = await atDesk(
      ['desk', 'join', url.replace('https', 'http'), paired.code!, '--ca-sha256', fingerprint],
      undefined,
      folder('x'),
    );
    assert.equal(notHttps.code, 2);
  });

  it('sends nothing to a server whose CA has another fingerprint: CA_FINGERPRINT_MISMATCH', async () => {
    // A server with the clinic's own certificate: only the fingerprint typed is wrong.
    const tls = join(data.dataDir, 'tls');
    let requests = 0;
    const impostor = createHttpsServer(
      { cert: readFileSync(join(tls, 'server.pem')), key: readFileSync(join(tls, 'server-key.pem')) },
      (_req, res) => {
        requests++;
        res.end();
      },
    );
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const port = (impostor.address() as AddressInfo).port;
      const wrong = fingerprint.replace(/^../, fingerprint.startsWith('AA') ? 'BB' : 'AA');
      const refused = await atDesk(
        ['desk', 'join', `https://127.0.0.1:${port}`, 'AAAA-BBBB-CCCC', '--ca-sha256', wrong],
        undefined,
        folder('pc-mismatch'),
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^error: CA_FINGERPRINT_MISMATCH/);
      assert.equal(requests, 0);
    } finally {
      impostor.close();
    }
  });

  it('runs the desk day on the desk PC with the printouts, --json and exit codes of the server PC, the trail naming the person and the PC', async () => {
    ok(await atDesk(['login', '--as', 'Anna Admin', '--pin-stdin'], '482913\n'));
    ok(await atServer(['login', '--as', 'Anna Admin', '--pin-stdin'], '482913\n'));
    const created = JSON.parse(
      ok(
        await atDesk([
          'create-patient',
          '--first-name',
          'Lena',
          '--last-name',
          'Remote',
          '--date-of-birth',
          '1990-02-03',
          '--email',
          'l@r.at',
          '--mobile',
          '+436641112233',
          '--json',
        ]),
      ),
    );
    const number = created.patient_number as string;
    ok(await atServer(['doctor', 'add', '--name', 'Dr. Desk', '--color', '#3366ff']));
    ok(await atServer(['service', 'add', '--name', 'Check', '--duration-min', '30', '--price', '80.00', '--color', '#33aa55']));
    ok(
      await atDesk([
        'book-appointment',
        '--patient-id',
        number,
        '--start-at',
        '01.12.2026 09:00',
        '--doctor',
        'Dr. Desk',
        '--service',
        'Check',
      ]),
    );
    assert.match(ok(await atDesk(['appointment', 'reschedule', 'A-1', '--start-at', '01.12.2026 10:00'])), /10:00/);
    const invoice = JSON.parse(ok(await atDesk(['invoice', 'create', '--patient-id', number, '--total', '120.50', '--json'])));
    ok(await atDesk(['record-payment', '--invoice', invoice.invoice_number, '--amount', '50', '--method', 'cash']));
    ok(await atDesk(['refund', '--invoice', invoice.invoice_number, '--payment', '1', '--amount', '10', '--reason', 'charged twice']));
    for (const command of [
      ['patient', 'find', 'Remote'],
      ['patient', 'find', 'Remote', '--json'],
      ['patient', 'show', number],
      ['appointment', 'list', '--date', '01.12.2026'],
      ['appointment', 'list', '--date', '01.12.2026', '--json'],
      ['invoice', 'show', invoice.invoice_number],
      ['invoice', 'list', '--json'],
      ['report', 'day', '--date', '01.12.2026'],
      ['patient', 'show', 'P-999999'],
      ['patient', 'find'],
    ]) {
      const [desk, server] = [await atDesk(command), await atServer(command)];
      assert.deepEqual([desk.code, desk.stdout, desk.stderr], [server.code, server.stdout, server.stderr], command.join(' '));
    }
    // upload-document: the desk PC's file goes with the command; the server stores it under the desk PC's name and removes its copy.
    const scan = Buffer.from('%PDF-1.4\n% a referral\n%%EOF\n');
    writeFileSync(join(deskPc, 'Überweisung Lena.pdf'), scan);
    const uploaded = JSON.parse(
      ok(
        await atDesk([
          'upload-document',
          '--patient-id',
          number,
          '--file',
          join(deskPc, 'Überweisung Lena.pdf'),
          '--title',
          'Referral',
          '--json',
        ]),
      ),
    );
    assert.deepEqual(
      [uploaded.document_number, uploaded.filename, uploaded.content_type, uploaded.size],
      ['D-000001', 'Überweisung Lena.pdf', 'application/pdf', 28],
    );
    assert.deepEqual(readdirSync(join(data.dataDir, 'tmp')), [], "no copy of the desk PC's file is left on the server");
    const missing = await atDesk(['upload-document', '--patient-id', number, '--file', join(deskPc, 'no-such.pdf')]);
    assert.equal(missing.code, 2, 'a file the desk PC does not have is a usage error there');
    // create-patient --file: the JSON file of the desk PC, its fields as the server PC reads them.
    writeFileSync(
      join(deskPc, 'patient.json'),
      JSON.stringify({ first_name: 'Fritz', last_name: 'Filed', email: 'f@f.at', mobile: '+43 660 5' }),
    );
    const filed = JSON.parse(ok(await atDesk(['create-patient', '--file', join(deskPc, 'patient.json'), '--json'])));
    assert.deepEqual([filed.first_name, filed.last_name], ['Fritz', 'Filed']);
    // document save: the file is written on the desk PC, fetched from the server and checked.
    const copy = join(deskPc, 'copy.pdf');
    assert.match(ok(await atDesk(['document', 'save', 'D-1', copy])), /Saved 28 B to .*copy\.pdf; its SHA-256 is the upload's/);
    assert.deepEqual(readFileSync(copy), scan);
    const there = await atDesk(['document', 'save', 'D-1', copy]);
    assert.deepEqual([there.code, there.stderr.split(':')[1]], [1, ' FILE_EXISTS']);
    assert.equal((await atDesk(['document', 'save', 'D-1', join(deskPc, 'no-such-folder', 'x.pdf')])).code, 2);
    const trail = JSON.parse(ok(await atDesk(['audit', 'list', '--json', '--from', '2020-01-01', '--to', '2030-12-31'])));
    const read = trail.filter((event: Record<string, unknown>) => event.action === 'document.read');
    assert.deepEqual(
      read.map((event: Record<string, unknown>) => event.source),
      ['Reception 2 (127.0.0.1)'],
      'the download recorded the read once; the command nothing',
    );
    // audit export: the desk PC pages GET /audit-events itself and writes what the server PC writes.
    const window = ['--from', '01.01.2020', '--to', '31.12.2030'];
    const [atDeskFile, atServerFile] = [join(deskPc, 'trail.ndjson'), join(serverPc, 'trail.ndjson')];
    const deskExport = await atDesk(['audit', 'export', '--fhir', atDeskFile, ...window]);
    const serverExport = await atServer(['audit', 'export', '--fhir', atServerFile, ...window]);
    assert.equal(deskExport.code, 0, deskExport.stderr);
    assert.equal(deskExport.stdout.replace(atDeskFile, 'FILE'), serverExport.stdout.replace(atServerFile, 'FILE'));
    assert.match(deskExport.stdout, /^Wrote \d+ events \(#1 to #\d+\) as FHIR AuditEvent resources to /);
    assert.equal(readFileSync(atDeskFile, 'utf8'), readFileSync(atServerFile, 'utf8'));
    const exportedJson = JSON.parse(ok(await atDesk(['audit', 'export', '--fhir', atDeskFile, ...window, '--force', '--json'])));
    assert.equal(exportedJson.file, atDeskFile);
    const again = await atDesk(['audit', 'export', '--fhir', atDeskFile]);
    assert.deepEqual([again.code, again.stderr.split(':')[1]], [1, ' FILE_EXISTS']);
    const made = trail.find((event: Record<string, unknown>) => event.action === 'patient.create' && event.patient_id === created.id);
    assert.deepEqual([made.actor_type, made.actor_name, made.source], ['person', 'Anna Admin', 'Reception 2 (127.0.0.1)']);
    // patient export: the copy is fetched from the export operation, which records it, and written here.
    const copyZip = join(deskPc, 'copy.zip');
    const copied = JSON.parse(ok(await atDesk(['patient', 'export', number, '--out', copyZip, '--json'])));
    const zipBytes = readFileSync(copyZip);
    assert.deepEqual(copied, {
      file: copyZip,
      size: zipBytes.length,
      sha256: createHash('sha256').update(zipBytes).digest('hex'),
      patient_id: created.id,
      patient_number: number,
    });
    assert.equal(zipBytes.subarray(0, 4).toString('hex'), '504b0304', 'a ZIP');
    const copiedAgain = await atDesk(['patient', 'export', number, '--out', copyZip]);
    assert.deepEqual([copiedAgain.code, copiedAgain.stderr.split(':')[1]], [1, ' FILE_EXISTS']);
    const exports = JSON.parse(ok(await atDesk(['audit', 'list', '--json', '--from', '2020-01-01', '--to', '2030-12-31']))).filter(
      (event: Record<string, unknown>) => event.action === 'patient.export',
    );
    assert.deepEqual(
      exports.map((event: Record<string, unknown>) => [event.actor_name, event.source]),
      [['Anna Admin', 'Reception 2 (127.0.0.1)']],
      'the download recorded the export once',
    );
    const backup = await atDesk(['backup', join(deskPc, 'x.clinic-backup')]);
    assert.equal(backup.code, 1);
    assert.match(unwrapped(backup.stderr), /^error: SERVER_PC_ONLY: clinic backup runs on the server PC only; this PC is a desk of https:/);
  });

  it("refuses what the person's roles do not allow, as the server PC does", async () => {
    ok(await atDesk(['login', '--as', 'Rita Reception', '--pin-stdin'], '573920\n'));
    const keys = await atDesk(['api-key', 'list']);
    assert.equal(keys.code, 1);
    assert.match(keys.stderr, /^error: ROLE_FORBIDDEN/);
    const status = JSON.parse(ok(await atDesk(['desk', 'status', '--json'])));
    assert.deepEqual([status.device_name, status.person.name, status.server_url], ['Reception 2', 'Rita Reception', url]);
  });

  it('repeats a payment whose answer was lost with its key, and records it once', async () => {
    // A proxy with the clinic's certificate that passes every request on but drops the first desk command's answer.
    const tls = join(data.dataDir, 'tls');
    const ca = readFileSync(join(tls, 'ca.pem'));
    let dropped = 0;
    const proxy: Server = createHttpsServer(
      { cert: readFileSync(join(tls, 'server.pem')), key: readFileSync(join(tls, 'server-key.pem')) },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const upstream = httpsRequest(`${url}${req.url}`, { method: req.method, headers: req.headers, ca }, (answer) => {
            const body: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => body.push(chunk));
            answer.on('end', () => {
              if (req.url?.endsWith('/desk/commands') && dropped++ === 0) {
                res.socket?.destroy();
                return;
              }
              res.writeHead(answer.statusCode ?? 500, answer.headers);
              res.end(Buffer.concat(body));
            });
          });
          upstream.end(Buffer.concat(chunks));
        });
      },
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const viaProxy = folder('pc-proxy');
      const paired = await pair('Till');
      ok(await atDesk(['desk', 'join', url, paired.code!, '--ca-sha256', fingerprint], undefined, viaProxy));
      const deskFile = join(viaProxy, 'clinic', 'desk.json');
      const desk = JSON.parse(readFileSync(deskFile, 'utf8'));
      writeFileSync(deskFile, JSON.stringify({ ...desk, server_url: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}` }));
      ok(await atDesk(['login', '--as', 'Rita Reception', '--pin-stdin'], '573920\n', viaProxy));
      const invoice = JSON.parse(ok(await atServer(['invoice', 'list', '--json'])))[0];
      const before = JSON.parse(ok(await atServer(['invoice', 'show', invoice.invoice_number, '--json'])));
      const paid = await atDesk(
        ['record-payment', '--invoice', invoice.invoice_number, '--amount', '5', '--method', 'cash'],
        undefined,
        viaProxy,
      );
      assert.equal(paid.code, 0, paid.stderr);
      assert.equal(dropped, 2, 'the first answer was dropped, the command sent once more');
      const afterwards = JSON.parse(ok(await atServer(['invoice', 'show', invoice.invoice_number, '--json'])));
      assert.equal(Number(afterwards.amount_paid) - Number(before.amount_paid), 5);
    } finally {
      proxy.close();
    }
  });

  it('refuses a revoked PC at once while the server runs, and a stopped server is exit 3 within 3 s', async () => {
    ok(await atServer(['desk', 'revoke', 'Reception 2']));
    const revoked = await atDesk(['patient', 'find', 'Remote']);
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /^error: DEVICE_REVOKED/);
    serve.child.kill(STOP_SIGNAL);
    await serve.exited;
    const started = performance.now();
    const unreachable = await atDesk(['patient', 'find', 'Remote']);
    assert.equal(unreachable.code, 3);
    assert.match(
      unwrapped(unreachable.stderr),
      /^error: SERVER_UNREACHABLE: https:\/\/127\.0\.0\.1:\d+ did not answer within 3 s; nothing was sent/,
    );
    // The process's own start is in this figure too: a generous bound, the 3 s being the connection's.
    assert.ok(performance.now() - started < 8_000);
  });

  it('sends a command once more to a server that accepts and never answers, then exit 3 naming the key to repeat it with', async () => {
    const tls = join(data.dataDir, 'tls');
    let connections = 0;
    const silent = createHttpsServer(
      { cert: readFileSync(join(tls, 'server.pem')), key: readFileSync(join(tls, 'server-key.pem')) },
      () => {
        connections++;
      },
    );
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const pc = folder('pc-silent');
      const deskFile = JSON.parse(readFileSync(join(deskPc, 'clinic', 'desk.json'), 'utf8'));
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(pc, 'clinic'), { recursive: true });
      writeFileSync(
        join(pc, 'clinic', 'desk.json'),
        JSON.stringify({ ...deskFile, server_url: `https://127.0.0.1:${(silent.address() as AddressInfo).port}` }),
      );
      writeFileSync(
        join(pc, 'clinic', 'session.json'),
        JSON.stringify({ sessions: { [`desk https://127.0.0.1:${(silent.address() as AddressInfo).port}`]: 'cls_x' } }),
      );
      const lost = await atDesk(
        [
          'create-patient',
          '--first-name',
          'No',
          '--last-name',
          'Answer',
          '--date-of-birth',
          '1990-01-01',
          '--email',
          'n@a.at',
          '--mobile',
          '+436640000000',
        ],
        undefined,
        pc,
      );
      assert.equal(lost.code, 3);
      assert.match(unwrapped(lost.stderr), /^error: SERVER_NO_ANSWER: .* --idempotency-key desk-[0-9a-f-]{36}/s);
      assert.equal(connections, 2);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

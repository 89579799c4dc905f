import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { addDoctor, addService } from '../../../src/domain/catalog.js';
import { API_PREFIX } from '../../../src/server/config.js';
import { buildPatient, createTestInvoice } from '../../helpers/builders.js';
import { assertMatchesContract } from '../../helpers/contract.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { multipartBody } from '../../helpers/multipart.js';

import { randomUUID } from 'node:crypto';
import { findDeviceById } from '../../../src/db/devices.js';
import { updatePersonRow } from '../../../src/db/persons.js';
import { deviceActor, joinDevice, PAIR_DEVICE, type PairedDevice } from '../../../src/domain/people/devices.js';
import { hashOneTimeCode } from '../../../src/domain/people/one-time-codes.js';
import { ADD_PERSON, findPerson } from '../../../src/domain/people/persons.js';
import { hashPin } from '../../../src/domain/people/pin.js';
import { logIn } from '../../../src/domain/people/sessions.js';
import { connectionRunner, runUseCase } from '../../../src/domain/use-case.js';

/** The OS user, as the examples' people and PCs are made by. */
const cliCaller = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'test', requestId: null } };

type Json = Record<string, any>;

const run = promisify(execFile);

/** The bytes of `scan.pdf`, the file the upload example sends from the folder it is pasted in. */
const SCAN = Buffer.from('%PDF-1.4\n% a scan for the examples\n%%EOF\n');

/** The variables the examples may use besides API and KEY: the ids of the records they name. */
const ID_VARIABLES = ['PATIENT', 'DOCTOR', 'SERVICE', 'APPOINTMENT', 'INVOICE', 'PAYMENT', 'DOCUMENT', 'DEVICE', 'SESSION'] as const;

/** The pairing code, person and PIN of the desk examples (src/server/routes/desk.ts, sessions.ts). */
const EXAMPLE_CODE = '7K3M-Q9TD-X2WH';
const EXAMPLE_PERSON = { name: 'Anna Berger', pin: '583920' };

/**
 * Every example request of the description: the shell blocks of each operation's description,
 * which the docs page shows as they are (it renders this very document).
 */
function examplesOf(description: Json): { operation: string; method: string; path: string; command: string }[] {
  return Object.entries(description.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).flatMap(([method, op]) =>
      [...String((op as Json).description ?? '').matchAll(/```sh\n([\s\S]*?)\n```/g)].map((block) => ({
        operation: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        command: block[1]!,
      })),
    ),
  );
}

/** `{patient_id}` → a pattern for one path segment, so that the request an example sends can be told to be its operation's. */
const pathPattern = (template: string) =>
  new RegExp(`^${API_PREFIX}${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`);

describe('the example requests of the interface description and the docs page (issue 42, finding 2)', () => {
  const server = useTestServer();
  let description: Json;

  before(async () => {
    description = (await server.request('GET', '/openapi.json', { key: null })).body as Json;
  });

  // Names an active doctor or service already has are refused (1.3.0): each set has its own.
  let made = 0;

  /**
   * What a reader of the docs page has made before pasting an example: a patient booked with a
   * doctor and a service, an invoice with nothing paid, a payment on another invoice and an
   * upload. Made afresh for each example, so that no example depends on what another did.
   */
  async function makeRecords(): Promise<Record<(typeof ID_VARIABLES)[number], string>> {
    const patient = await server.request('POST', '/patients', { body: buildPatient() });
    assert.equal(patient.status, 201);
    const doctor = addDoctor(server.db, { name: `Dr. Grace Hopper ${++made}`, color: '#3366ff' });
    const service = addService(server.db, { name: `Check-up ${made}`, duration_min: 30, price: '80.00', color: '#33aa55' });
    const appointment = await server.request('POST', '/appointments', {
      body: {
        patient_id: patient.body.id,
        start_at: '2026-12-01T09:00',
        end_at: '2026-12-01T09:30',
        resource_id: doctor.id,
        service_id: service.id,
      },
    });
    assert.equal(appointment.status, 201);
    const unpaid = createTestInvoice(server.db, { patient_id: patient.body.id, total: '120.50' });
    const paid = createTestInvoice(server.db, { patient_id: patient.body.id, total: '40.00' });
    const payment = await server.request('POST', `/invoices/${paid.id}/payments`, { body: { amount: '40.00', method: 'card' } });
    assert.equal(payment.status, 200);
    const form = multipartBody([{ name: 'file', filename: 'scan.pdf', contentType: 'application/pdf', data: SCAN }]);
    const upload = await server.request('POST', `/patients/${patient.body.id}/documents`, {
      rawBody: form.body,
      headers: { 'content-type': form.contentType },
    });
    assert.equal(upload.status, 201);
    // A reader at a desk PC: its person with the example's PIN, the PC joined and logged in, and
    // another PC waiting with the example's code (a code works once).
    if (findPerson(server.db, EXAMPLE_PERSON.name) === undefined) {
      runUseCase(ADD_PERSON, server.db, { body: { name: EXAMPLE_PERSON.name, roles: 'admin' } }, cliCaller, connectionRunner(server.db));
      const person = findPerson(server.db, EXAMPLE_PERSON.name)!;
      updatePersonRow(server.db, { ...person, pin_hash: hashPin(EXAMPLE_PERSON.pin) });
    }
    const pair = () =>
      runUseCase(PAIR_DEVICE, server.db, { body: { name: `Desk PC ${made}-${randomUUID()}` } }, cliCaller, connectionRunner(server.db));
    const joined = joinDevice(server.db, { code: (pair() as PairedDevice).code, hostName: 'pc', address: '127.0.0.1', version: null });
    const device = findDeviceById(server.db, joined.device_id)!;
    const { token } = logIn(
      server.db,
      { person: EXAMPLE_PERSON.name, pin: EXAMPLE_PERSON.pin },
      {
        deviceActor: deviceActor(device, '127.0.0.1'),
        source: 'example',
        device,
      },
    );
    server.db.prepare('UPDATE devices SET code_hash = NULL').run();
    const waiting = (pair() as PairedDevice).device;
    server.db.prepare('UPDATE devices SET code_hash = ? WHERE id = ?').run(hashOneTimeCode(EXAMPLE_CODE), waiting.id);
    return {
      PATIENT: patient.body.id,
      DOCTOR: doctor.id,
      SERVICE: service.id,
      APPOINTMENT: appointment.body.id,
      INVOICE: unpaid.id,
      PAYMENT: payment.body.payment_id,
      DOCUMENT: upload.body.id,
      DEVICE: joined.device_token,
      SESSION: token,
    };
  }

  it('names in its examples only API, KEY and the ids its introduction says how to set', () => {
    const used = new Set(examplesOf(description).flatMap(({ command }) => [...command.matchAll(/\$(\w+)/g)].map((m) => m[1]!)));
    const intro = String(description.info.description);
    assert.match(intro, /`API`/);
    assert.match(intro, /`KEY`/);
    for (const name of used) {
      assert.ok(['API', 'KEY', ...ID_VARIABLES].includes(name), `an example uses $${name}`);
      assert.match(intro, new RegExp(`\`${name}\``), `the introduction says what $${name} is`);
    }
  });

  it('serves on its docs page the description whose examples are run here', async () => {
    const script = await fetch(`${server.baseUrl}/docs/init.js`);
    assert.match(await script.text(), new RegExp(`url: "${API_PREFIX}/openapi\\.json"`));
  });

  it('answers every example, pasted into bash with API and KEY set, 2xx from the operation it documents', async () => {
    const examples = examplesOf(description);
    assert.equal(examples.length, Object.values(description.paths as Json).flatMap((item) => Object.keys(item as Json)).length);
    const failures: string[] = [];
    for (const example of examples) {
      const folder = mkdtempSync(join(tmpdir(), 'clinic-example-'));
      try {
        writeFileSync(join(folder, 'scan.pdf'), SCAN);
        const records = await makeRecords();
        const headersFile = join(folder, '.headers');
        // Each curl the example runs also writes its answer's headers and, last, its status,
        // method and URL: the example itself is run as written.
        const shell = `curl() { command curl -D '${headersFile}' -w '\\n%{http_code} %{method} %{url_effective}' "$@"; }\n${example.command}`;
        // --norc: bash reads ~/.bashrc when its input is a socket, as a child's is here, and a slow one slowed every example.
        // The reader's shell and curl are the system's, also where the executable's runs put only the program on PATH.
        const { stdout } = await run('/bin/bash', ['--norc', '--noprofile', '-c', shell], {
          cwd: folder,
          env: { PATH: `${process.env.PATH}:/usr/local/bin:/usr/bin:/bin`, API: server.baseUrl, KEY: server.key, ...records },
          maxBuffer: 16 * 1024 * 1024,
        });
        const lines = stdout.split('\n');
        const [status, method, url] = lines.at(-1)!.split(' ') as [string, string, string];
        const text = lines.slice(0, -1).join('\n');
        const where = `${example.operation}: ${example.command}\n  → ${status} ${method} ${url}\n  ${text.slice(0, 300)}`;
        if (!/^2\d\d$/.test(status)) failures.push(where);
        else if (method !== example.method || !pathPattern(example.path).test(new URL(url).pathname))
          failures.push(`not its operation: ${where}`);
        else {
          const headers = new Headers();
          for (const line of readFileSync(headersFile, 'utf8').split('\r\n').slice(1)) {
            const colon = line.indexOf(':');
            if (colon > 0) headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
          }
          if ((headers.get('content-type') ?? '').startsWith('application/json'))
            assertMatchesContract(method, url, { status: Number(status), headers, text });
        }
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
    assert.deepEqual(failures, []);
  });
});

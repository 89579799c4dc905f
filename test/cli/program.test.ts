import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { SCHEMA_VERSION } from '../../src/db/migrations.js';
import { SCOPES } from '../../src/domain/api-keys.js';
import { buildPatient } from '../helpers/builders.js';
import { runClinic } from '../helpers/run-cli.js';
import { useDataDirs, useTestServer } from '../helpers/fixtures.js';
import { createPatientArgs } from '../helpers/desk-args.js';
import { jsonAs } from '../helpers/desk-schema.js';

const newDir = useDataDirs();

describe('clinic command line', () => {
  let dataDir: string;
  const clinic = (...args: string[]) => runClinic([...args, '--data', dataDir]);
  before(() => {
    dataDir = newDir();
  });

  it('init creates the database and is safe to run twice', async () => {
    for (let i = 0; i < 2; i++) {
      const result = await clinic('init', '--json');
      assert.equal(result.code, 0, result.stderr);
      assert.equal(JSON.parse(result.stdout).schema_version, SCHEMA_VERSION);
    }
  });

  it('api-key create --json prints id, name, key, scopes and created_at once', async () => {
    const result = await clinic('api-key', 'create', '--name', 'reception', '--scopes', 'patients:write,lookups:read', '--json');
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(created).sort(), ['created_at', 'id', 'key', 'name', 'scopes']);
    assert.deepEqual(created.scopes, ['patients:write', 'lookups:read']);
    const list = await clinic('api-key', 'list', '--json');
    assert.equal(list.stdout.includes(created.key), false, 'list never shows the key');
    assert.ok(JSON.parse(list.stdout).some((k: { id: string }) => k.id === created.id));
  });

  it('api-key create gives a new key every scope by default', async () => {
    const created = JSON.parse((await clinic('api-key', 'create', '--name', 'all', '--json')).stdout);
    assert.deepEqual(created.scopes, [...SCOPES]);
  });

  it('refuses an unknown scope with exit 1', async () => {
    const result = await clinic('api-key', 'create', '--name', 'x', '--scopes', 'root');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /scopes/);
  });

  it('api-key revoke marks the key revoked; an unknown id exits 1 with API_KEY_NOT_FOUND', async () => {
    const created = JSON.parse((await clinic('api-key', 'create', '--name', 'temp', '--json')).stdout);
    const revoked = await clinic('api-key', 'revoke', created.id, '--json');
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.ok(JSON.parse(revoked.stdout).revoked_at);
    const unknown = await clinic('api-key', 'revoke', '00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /API_KEY_NOT_FOUND/);
  });

  it('doctor add --json prints a Doctor, and doctor list shows it', async () => {
    const doctor = jsonAs('Doctor', await clinic('doctor', 'add', '--name', 'Dr. Who', '--color', '#0000ff', '--json'));
    assert.deepEqual(Object.keys(doctor).sort(), ['color', 'id', 'name', 'retired_at']);
    const list = JSON.parse((await clinic('doctor', 'list', '--json')).stdout);
    assert.deepEqual(list.at(-1), doctor);
  });

  it('service add --json prints a Service with a numeric price', async () => {
    const service = jsonAs(
      'Service',
      await clinic('service', 'add', '--name', 'Filling', '--duration-min', '30', '--price', '120.50', '--color', 'red', '--json'),
    );
    assert.deepEqual(
      { ...service, id: undefined },
      { id: undefined, name: 'Filling', duration_min: 30, price: 120.5, color: 'red', retired_at: null },
    );
  });

  it('refuses invalid values with exit 1 and the validation problem', async () => {
    const result = await clinic('service', 'add', '--name', 'X', '--duration-min', 'long', '--price', '1.2345', '--color', 'red');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /--duration-min "long": .*int_type/);
    assert.match(result.stderr, /--price "1.2345": .*\(decimal_max_places\)\n {4}hint: at most 2 digits after the decimal mark/);
  });

  it('exits 2 on bad usage: unknown command, missing required option, bad port', async () => {
    assert.equal((await clinic('frobnicate')).code, 2);
    assert.equal((await clinic('doctor', 'add', '--color', 'red')).code, 2);
    assert.equal((await clinic('serve', '--port', 'http')).code, 2);
  });

  it('create-patient --json prints the same Patient shape the API returns', async () => {
    const patient = jsonAs(
      'Patient',
      await clinic(
        ...createPatientArgs('Grace', 'Hopper', 'grace@example.org', '+1 555'),
        '--gdpr-consent',
        'true',
        '--portal-access',
        '{"xrays":true}',
        '--discount-percent',
        '.5',
        '--json',
      ),
    );
    assert.match(patient.patient_number, /^P-\d{6}$/);
    assert.equal(patient.gdpr_consent, true);
    assert.equal(patient.portal_access.xrays, true);
    assert.equal(patient.discount_percent, '0.5');
    assert.equal(patient.outstanding_balance, '0');
  });

  it('create-patient reads --file and lets options override it', async () => {
    const file = join(dataDir, 'patient.json');
    writeFileSync(file, JSON.stringify({ ...buildPatient({ first_name: 'FromFile' }), city: 'ignored' }));
    const result = await clinic('create-patient', '--file', file, '--last-name', 'FromOption', '--json');
    assert.equal(result.code, 0, result.stderr);
    const patient = JSON.parse(result.stdout);
    assert.equal(patient.first_name, 'FromFile');
    assert.equal(patient.last_name, 'FromOption');
  });

  it('create-patient without a mobile exits 1 with PATIENT_CONTACT_REQUIRED', async () => {
    const result = await clinic('create-patient', '--first-name', 'A', '--last-name', 'B', '--email', 'a@b');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PATIENT_CONTACT_REQUIRED/);
    const json = await clinic('create-patient', '--first-name', 'A', '--last-name', 'B', '--email', 'a@b', '--json');
    assert.equal(JSON.parse(json.stderr).detail.code, 'PATIENT_CONTACT_REQUIRED');
  });

  it('module disable and enable switch a module; an unknown module exits 1', async () => {
    assert.equal((await clinic('module', 'disable', 'billing')).code, 0);
    let modules = JSON.parse((await clinic('module', 'list', '--json')).stdout);
    assert.deepEqual(modules, [
      { module: 'billing', enabled: false },
      { module: 'payments', enabled: true },
    ]);
    assert.equal((await clinic('module', 'enable', 'billing')).code, 0);
    modules = JSON.parse((await clinic('module', 'list', '--json')).stdout);
    assert.equal(modules[0].enabled, true);
    assert.equal((await clinic('module', 'disable', 'pharmacy')).code, 1);
  });

  it('settings set-timezone accepts an IANA zone and refuses nonsense', async () => {
    assert.equal((await clinic('settings', 'set-timezone', 'Europe/Vienna')).code, 0);
    assert.equal(JSON.parse((await clinic('settings', 'show', '--json')).stdout).timezone, 'Europe/Vienna');
    assert.equal((await clinic('settings', 'set-timezone', 'Mars/Olympus')).code, 1);
  });

  it('names a refused positional argument as the person typed it, with a hint that fits it', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['module', 'disable', 'pharmacy'],
        /^ {2}<module> "pharmacy": is not one of the choices \(literal_error\)\n {4}hint: one of: billing, payments$/m,
      ],
      [['settings', 'set-timezone', 'Mars/Olympus'], /^ {2}<zone>: .*"Mars\/Olympus" is not .*\(value_error\)$/m],
      [['appointment', 'show', 'A17'], /^ {2}<ref> "A17": .*\(uuid_parsing\)$/m],
      [['patient', 'show', 'Huber'], /^ {2}<ref> "Huber": .*\(uuid_parsing\)$/m],
      [['invoice', 'show', 'INV-17'], /^ {2}<ref> "INV-17": .*\(uuid_parsing\)$/m],
      [['patient', 'find', ''], /^ {2}<text\.\.\.> "": .*\(string_too_short\)$/m],
      // A key is revoked by its name too (issue 42): one no key in use has is API_KEY_NOT_FOUND.
      [['api-key', 'revoke', 'abc'], /^error: API_KEY_NOT_FOUND: No API key in use is named "abc".*\nhint: .*clinic api-key list/m],
    ];
    for (const [args, expected] of cases) {
      const result = await clinic(...args);
      assert.equal(result.code, 1, args.join(' '));
      assert.match(result.stderr, expected, args.join(' '));
      assert.doesNotMatch(result.stderr, /--(module|timezone|appointment-id|patient-id|invoice-id|q|id):/, args.join(' '));
    }
  });

  it('reads the data directory from CLINIC_DATA', async () => {
    const other = newDir();
    assert.equal((await runClinic(['init'], { env: { CLINIC_DATA: other } })).code, 0);
    const result = await runClinic(['doctor', 'list', '--json'], { env: { CLINIC_DATA: other } });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), []);
  });
});

describe('the CLI and the server share one database', () => {
  const server = useTestServer();

  it('a key issued by the CLI authenticates on the running server, and revoking it applies at once', async () => {
    const created = JSON.parse((await runClinic(['api-key', 'create', '--name', 'cli', '--json', '--data', server.dataDir])).stdout);
    assert.equal((await server.request('GET', '/doctors', { key: created.key })).status, 200);
    await runClinic(['api-key', 'revoke', created.id, '--data', server.dataDir]);
    assert.equal((await server.request('GET', '/doctors', { key: created.key })).status, 401);
  });

  it('a doctor added by the CLI is listed by the API', async () => {
    const doctor = JSON.parse(
      (await runClinic(['doctor', 'add', '--name', 'Dr. CLI', '--color', 'teal', '--json', '--data', server.dataDir])).stdout,
    );
    const listed = await server.request('GET', '/doctors');
    assert.deepEqual(listed.body.at(-1), doctor);
  });
});

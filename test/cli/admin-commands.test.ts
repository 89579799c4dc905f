import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { SCHEMA_VERSION } from '../../src/db/migrations.js';
import { programPath, runClinic } from '../helpers/run-cli.js';
import { makeDataDir } from '../helpers/fixtures.js';
import { createPatientArgs } from '../helpers/desk-args.js';
import { jsonOf } from '../helpers/desk-output.js';

// Every administrative command once, through a child process: with CLINIC_BIN this proves the
// single executable runs each of them on its own.
describe('clinic commands', () => {
  let dataDir: string;
  const clinic = (...args: string[]) => runClinic([...args, '--data', dataDir]);
  before(() => {
    dataDir = makeDataDir();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('init creates the database and is safe to run twice', async () => {
    for (let run = 0; run < 2; run += 1) {
      const result = await clinic('init', '--json');
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), { data_dir: programPath(dataDir), schema_version: SCHEMA_VERSION });
    }
  });

  it('api-key create, list and revoke', async () => {
    const created = await clinic('api-key', 'create', '--name', 'reception', '--scopes', 'patients:write,lookups:read', '--json');
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout) as { id: string; key: string; scopes: string[] };
    assert.match(key.key, /^clinic_/);
    assert.deepEqual(key.scopes, ['patients:write', 'lookups:read']);
    const listed = JSON.parse((await clinic('api-key', 'list', '--json')).stdout) as { id: string; revoked_at: string | null }[];
    assert.equal(listed.find((k) => k.id === key.id)?.revoked_at, null);
    assert.equal(JSON.stringify(listed).includes(key.key), false, 'list never shows a secret');
    const revoked = await clinic('api-key', 'revoke', key.id, '--json');
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.notEqual((JSON.parse(revoked.stdout) as { revoked_at: string | null }).revoked_at, null);
    // For IT: a block per key, clinic time, the id that revoke takes, within 100 columns; never the secret.
    const human = (await clinic('api-key', 'list')).stdout;
    assert.match(
      human,
      new RegExp(
        `^reception \\(revoked\\)\nId +${key.id}\nScopes +patients:write, lookups:read\nRate limit +none\nCreated +\\w{3} \\d{2}\\.\\d{2}\\.\\d{4} \\d{2}:\\d{2}\nRevoked +\\w{3} `,
        'm',
      ),
    );
    assert.doesNotMatch(human, /\d{4}-\d{2}-\d{2}T/, 'no UTC timestamps');
    assert.equal(human.includes(key.key), false);
    for (const line of human.split('\n')) assert.ok(line.length <= 100, line);
  });

  it('doctor and service add and list', async () => {
    assert.equal((await clinic('doctor', 'add', '--name', 'Dr. Grey', '--color', '#123456')).code, 0);
    const added = await clinic('service', 'add', '--name', 'Cleaning', '--duration-min', '45', '--price', '80.50', '--color', '#00ff00');
    assert.equal(added.code, 0);
    // For people, a price is money in the clinic currency; --json keeps the API's number.
    assert.match(added.stdout, /^price\s+80\.50 EUR$/m);
    assert.match((await clinic('service', 'list')).stdout, /\bCleaning\s+45\s+80\.50 EUR\b/);
    const doctors = JSON.parse((await clinic('doctor', 'list', '--json')).stdout) as { name: string }[];
    assert.deepEqual(
      doctors.map((d) => d.name),
      ['Dr. Grey'],
    );
    const services = JSON.parse((await clinic('service', 'list', '--json')).stdout) as { name: string; price: number }[];
    assert.deepEqual(
      services.map((s) => [s.name, s.price]),
      [['Cleaning', 80.5]],
    );
  });

  it('module disable and list, settings set-timezone and show', async () => {
    assert.equal((await clinic('module', 'disable', 'payments')).code, 0);
    const modules = JSON.parse((await clinic('module', 'list', '--json')).stdout) as { module: string; enabled: boolean }[];
    assert.deepEqual(modules, [
      { module: 'billing', enabled: true },
      { module: 'payments', enabled: false },
    ]);
    assert.equal((await clinic('settings', 'set-timezone', 'Europe/Vienna')).code, 0);
    const settings = JSON.parse((await clinic('settings', 'show', '--json')).stdout) as { timezone: string };
    assert.equal(settings.timezone, 'Europe/Vienna');
  });

  it('create-patient prints a Patient, and a refusal exits 1 with the API error code', async () => {
    const created = jsonOf<{ patient_number: string }>(
      await clinic(...createPatientArgs('Ada', 'Lovelace', 'ada@example.org', '+43 660 1'), '--json'),
    );
    assert.match(created.patient_number, /^P-\d{6}$/);
    const refused = await clinic('create-patient', '--first-name', 'Ada', '--last-name', 'Lovelace');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /PATIENT_CONTACT_REQUIRED/);
  });

  it('exits 2 on bad usage', async () => {
    const result = await clinic('no-such-command');
    assert.equal(result.code, 2);
  });
});

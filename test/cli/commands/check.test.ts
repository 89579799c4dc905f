import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient } from '../../helpers/builders.js';
import { damageDatabase } from '../../helpers/faults.js';
import { addDocument, addInvoice } from '../../helpers/module-tables.js';
import { programPath, programPlatform, runClinic } from '../../helpers/run-cli.js';
import { makeDataDir, useTestDatabase } from '../../helpers/fixtures.js';
import { startTestServer } from '../../helpers/test-server.js';

/** Every check `clinic check` runs, in its order. */
const CHECK_NAMES = [
  'permissions',
  'tls_files',
  'first_api_key_file',
  'integrity',
  'foreign_keys',
  'document_files',
  'purged_document_files',
  'upload_temp_files',
  'audit_trail',
  'change_feed',
  'invoice_payments',
  'balances_in_several_currencies',
];

interface CheckReport {
  ok: boolean;
  checks: { name: string; status: string; findings: string[] }[];
}

describe('clinic check', () => {
  const data = useTestDatabase({ each: true });

  async function check(): Promise<{ code: number; report: CheckReport; stderr: string }> {
    const result = await runClinic(['check', '--json', '--data', data.dataDir]);
    return { code: result.code, report: JSON.parse(result.stdout) as CheckReport, stderr: result.stderr };
  }
  const findingsOf = (report: CheckReport, name: string) => report.checks.find((c) => c.name === name)?.findings ?? [];

  it('passes a sound data directory', async () => {
    createPatient(data.db, buildPatient());
    const { code, report } = await check();
    assert.equal(code, 0);
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.checks.map((c) => c.name),
      CHECK_NAMES,
    );
    for (const c of report.checks) assert.equal(c.status, 'ok', c.name);
  });

  it('passes documents whose files match their rows and invoices whose payments add up', async () => {
    const patient = createPatient(data.db, buildPatient());
    addDocument(data.db, data.dataDir, patient.id, randomBytes(70_000));
    addInvoice(data.db, 12_050, [10_000, 2_050]);
    addInvoice(data.db, 0, []);
    const { code, report } = await check();
    assert.equal(code, 0, JSON.stringify(report));
    assert.deepEqual(
      report.checks.map((c) => c.status),
      CHECK_NAMES.map(() => 'ok'),
    );
  });

  it('finds a corrupted, a truncated and a missing document file and exits 1, naming each', async () => {
    const patient = createPatient(data.db, buildPatient());
    const corrupted = addDocument(data.db, data.dataDir, patient.id, Buffer.from('the original x-ray'));
    const truncated = addDocument(data.db, data.dataDir, patient.id, Buffer.from('a consent form'));
    const missing = addDocument(data.db, data.dataDir, patient.id, Buffer.from('a prescription'));
    addDocument(data.db, data.dataDir, patient.id, Buffer.from('an intact letter'));
    writeFileSync(join(data.dataDir, 'documents', patient.id, corrupted), 'the 0riginal x-ray');
    truncateSync(join(data.dataDir, 'documents', patient.id, truncated), 3);
    unlinkSync(join(data.dataDir, 'documents', patient.id, missing));
    const { code, report, stderr } = await check();
    assert.equal(code, 1);
    assert.equal(report.ok, false);
    assert.match(stderr, /check found 3 problem/);
    const findings = findingsOf(report, 'document_files');
    assert.equal(findings.length, 3);
    assert.match(findings.find((f) => f.includes(corrupted)) ?? '', /SHA-256/);
    assert.match(findings.find((f) => f.includes(truncated)) ?? '', /has 3 bytes, the database records 14/);
    assert.match(findings.find((f) => f.includes(missing)) ?? '', /file is missing/);
  });

  it('finds an invoice whose amount paid was tampered with, and prints the finding for a person', async () => {
    const invoice = addInvoice(data.db, 5_000, [2_000, 2_000]);
    addInvoice(data.db, 1_000, [1_000]);
    const { code, report } = await check();
    assert.equal(code, 1);
    assert.deepEqual(findingsOf(report, 'invoice_payments'), [
      `invoice ${invoice}: amount paid is 5000 cents, its payments add up to 4000 cents`,
    ]);
    const human = await runClinic(['check', '--data', data.dataDir]);
    assert.equal(human.code, 1);
    assert.match(human.stdout, /FAILED\s+invoice_payments/);
    assert.ok(human.stdout.includes(`invoice ${invoice}: amount paid is 5000 cents`));
  });

  it('finds an event removed from the change feed and the trigger that should have refused it', async () => {
    for (let i = 0; i < 3; i++) createPatient(data.db, buildPatient());
    data.db.exec('DROP TRIGGER change_events_are_append_only_on_delete');
    data.db.prepare('DELETE FROM change_events WHERE seq = 2').run();
    const { code, report } = await check();
    assert.equal(code, 1);
    assert.deepEqual(findingsOf(report, 'change_feed'), [
      "the change feed's trigger change_events_are_append_only_on_delete is missing: its events could be changed or deleted unnoticed by SQLite",
      'the change feed has 2 events but its last is seq 3: 1 missing',
    ]);
  });

  it('finds a row that refers to a missing row', async () => {
    data.db.exec(
      'CREATE TABLE check_parent (id INTEGER PRIMARY KEY); CREATE TABLE check_child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES check_parent (id))',
    );
    data.db.pragma('foreign_keys = OFF');
    data.db.prepare('INSERT INTO check_child (id, parent_id) VALUES (1, 42)').run();
    const { code, report } = await check();
    assert.equal(code, 1);
    assert.deepEqual(findingsOf(report, 'foreign_keys'), ['check_child row 1 refers to a missing row of check_parent']);
  });

  it('refuses a data directory without a database instead of creating one', async () => {
    const empty = makeDataDir();
    try {
      const result = await runClinic(['check', '--data', empty]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /NO_DATABASE: There is no clinic database at .*clinic\.db\.\s+Point at the clinic.s data directory with --data DIR or the CLINIC_DATA environment variable/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('reports a database with 512 bytes overwritten mid-file as findings, each check on its own line, and as JSON', async () => {
    for (let i = 0; i < 200; i++) createPatient(data.db, buildPatient({ notes: 'x'.repeat(500) }));
    data.db.close();
    damageDatabase(data.dataDir);
    const { code, report, stderr } = await check();
    assert.equal(code, 1);
    assert.equal(report.ok, false);
    const integrity = report.checks.find((c) => c.name === 'integrity')!;
    assert.equal(integrity.status, 'failed');
    assert.ok(integrity.findings.length > 0);
    assert.match(stderr, /CHECK_FAILED/);
    const human = await runClinic(['check', '--data', data.dataDir]);
    assert.equal(human.code, 1);
    for (const name of CHECK_NAMES) {
      assert.match(human.stdout, new RegExp(`^(OK|FAILED)\\s+${name}: `, 'm'), name);
    }
    assert.doesNotMatch(human.stderr, /^error: database disk image is malformed/m);
  });

  // Windows has no modes to report (docs/install.md, "Install on a Windows PC": the access list does that work).
  it(
    'reports a data directory and a database file other users can read, with the chmod that closes them',
    { skip: programPlatform === 'win32' && 'no file modes on Windows' },
    async () => {
      chmodSync(data.dataDir, 0o755);
      chmodSync(join(data.dataDir, 'clinic.db'), 0o664);
      const { code, report } = await check();
      assert.equal(code, 1);
      assert.deepEqual(findingsOf(report, 'permissions'), [
        `the data directory ${data.dataDir} has mode 0755: other users of this computer can reach patient data, its group cannot enter and write in it and it lacks the setgid bit (what a member makes in it would not take its group); run chmod 2770 on it`,
        `${join(data.dataDir, 'clinic.db')} has mode 0664: other users of this computer can read it; run chmod 660 on it`,
      ]);
    },
  );

  it(
    'in a data directory its group may enter (2770), reports what the group cannot use, and passes a file of another user that has the group',
    { skip: (programPlatform === 'win32' || process.getuid?.() !== 0) && 'needs root to give files away' },
    async () => {
      chmodSync(data.dataDir, 0o2770);
      const patient = createPatient(data.db, buildPatient());
      const [desks, foreign, narrow] = ['desk', 'foreign', 'narrow'].map(() =>
        addDocument(data.db, data.dataDir, patient.id, Buffer.from('scan')),
      );
      const folder = join(data.dataDir, 'documents', patient.id);
      // A desk user's upload: their own file, with the directory's group (setgid).
      chownSync(join(folder, desks!), 65534, 0);
      chownSync(join(folder, foreign!), 0, 65534);
      chmodSync(join(folder, narrow!), 0o600);
      chmodSync(folder, 0o770);
      const { code, report } = await check();
      assert.equal(code, 1);
      assert.deepEqual(
        findingsOf(report, 'permissions').sort(),
        [
          `${folder} has mode 0770: it lacks the setgid bit (what a member makes in it would not take its group); run chmod 2770 on it`,
          `${join(folder, foreign!)} has group 65534, not the data directory's group 0, whose members therefore cannot use it; run chgrp 0 on it`,
          `${join(folder, narrow!)} has mode 0600: its group cannot read and write it; run chmod 660 on it`,
        ].sort(),
      );
    },
  );

  it('reports the first API key left in its file until the file is deleted', async () => {
    const file = join(data.dataDir, 'first-api-key.txt');
    writeFileSync(file, 'clinic_x\n');
    const { code, report } = await check();
    assert.equal(code, 1);
    assert.deepEqual(findingsOf(report, 'first_api_key_file'), [
      `${programPath(file)} still holds the first API key, written there by the server's first start: store the key and delete the file`,
    ]);
    unlinkSync(file);
    assert.equal((await check()).code, 0);
  });

  it('reports an upload left in tmp/ by a writer that is gone, with its size', async () => {
    const stale = join(data.dataDir, 'tmp', `${randomUUID()}.999999999.part`);
    mkdirSync(join(data.dataDir, 'tmp'), { recursive: true });
    writeFileSync(stale, Buffer.alloc(4096));
    const { code, report } = await check();
    assert.equal(code, 1);
    assert.deepEqual(findingsOf(report, 'upload_temp_files'), [
      `abandoned upload, 4096 bytes, left by an interrupted upload; the next \`clinic serve\` removes it: ${programPath(stale)}`,
    ]);
  });
  it(
    "reports files of another owner than the data directory's, as a restore run as root left them",
    { skip: (programPlatform === 'win32' || process.getuid?.() !== 0) && 'needs root to give files away' },
    async () => {
      const patient = createPatient(data.db, buildPatient());
      const documentId = addDocument(data.db, data.dataDir, patient.id, Buffer.from('scan'));
      const file = join(data.dataDir, 'documents', patient.id, documentId);
      chownSync(join(data.dataDir, 'clinic.db'), 65534, 65534);
      chownSync(file, 65534, 65534);
      const { code, report } = await check();
      assert.equal(code, 1);
      assert.deepEqual(findingsOf(report, 'permissions'), [
        `${join(data.dataDir, 'clinic.db')} belongs to uid 65534, the data directory to uid 0; run chown 0 on it`,
        `${file} belongs to uid 65534, the data directory to uid 0; run chown 0 on it`,
      ]);
    },
  );

  it(
    'reports a document file replaced by a link, and the server never serves what it points to',
    { skip: programPlatform === 'win32' && 'links need privileges on Windows' },
    async () => {
      const patient = createPatient(data.db, buildPatient());
      const documentId = addDocument(data.db, data.dataDir, patient.id, Buffer.from('scan'));
      const file = join(data.dataDir, 'documents', patient.id, documentId);
      const secret = join(makeDataDir(), 'secret');
      writeFileSync(secret, 'scan');
      unlinkSync(file);
      symlinkSync(secret, file);
      const { code, report } = await check();
      assert.equal(code, 1);
      assert.deepEqual(findingsOf(report, 'document_files'), [
        `document ${documentId} of patient ${patient.id}: file is a symbolic link, which clinic never follows nor serves: ${programPath(file)}`,
      ]);
      const server = await startTestServer({}, data.dataDir);
      try {
        const response = await server.request('GET', `/patients/${patient.id}/documents/${documentId}`);
        assert.equal(response.status, 500);
        assert.equal(response.body.detail.code, 'STORAGE_FAILED');
        assert.doesNotMatch(response.text, /scan/);
      } finally {
        await server.close();
      }
    },
  );
});

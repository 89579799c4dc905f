import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { documentFilePath } from '../../../src/db/document-files.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useDataDirs, useTestDatabase } from '../../helpers/fixtures.js';
import { programPath, programPlatform, runClinic } from '../../helpers/run-cli.js';
import { zipEntries } from '../../helpers/zip-entries.js';

// `clinic patient export REF --out FILE` (clinic-api-1.3.md, "The patient's copy"), as a child process.

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('clinic patient export', () => {
  const data = useTestDatabase();
  const newDir = useDataDirs();
  let patient: Patient;
  let out: string;
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

  async function upload(owner: Patient, name: string, bytes: Buffer): Promise<string> {
    const file = join(out, name);
    writeFileSync(file, bytes);
    const result = await clinic('upload-document', '--patient-id', owner.patient_number, '--file', file, '--type', 'scans', '--json');
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout).id as string;
  }

  before(async () => {
    patient = createTestPatient(data.db, { first_name: 'Ada', last_name: 'Lovelace' });
    out = newDir();
    await upload(patient, 'scan.pdf', Buffer.alloc(200_000, 7));
  });

  it('writes the copy, readable by this user only, and says where, how big and its SHA-256', async () => {
    const target = join(out, 'ada.zip');
    const result = await clinic('patient', 'export', patient.patient_number, '--out', target);
    assert.equal(result.code, 0, result.stderr);
    const bytes = readFileSync(target);
    if (programPlatform !== 'win32') assert.equal(statSync(target).mode & 0o777, 0o600);
    const lines = result.stdout.split('\n');
    assert.equal(lines[0], `Copy of the data of ${patient.patient_number} Ada Lovelace`);
    assert.equal(lines[1], `File     ${programPath(target)}`);
    assert.match(lines[2]!, /^Size {5}\d+(\.\d)? KiB$/);
    assert.equal(lines[3], `SHA-256  ${sha256(bytes)}`);
    const names = (await zipEntries(bytes)).map((entry) => entry.name);
    assert.equal(names.at(-1), 'manifest.json');
    assert.ok(names.some((name) => name.endsWith('/scan.pdf')));
    assert.deepEqual(readdirSync(out).sort(), ['ada.zip', 'scan.pdf'], 'no temporary file is left');
  });

  it('prints the file, its size and SHA-256 and the patient with --json', async () => {
    const target = join(out, 'ada.json.zip');
    const result = await clinic('patient', 'export', patient.id, '--out', target, '--json');
    assert.equal(result.code, 0, result.stderr);
    const bytes = readFileSync(target);
    assert.deepEqual(JSON.parse(result.stdout), {
      file: programPath(target),
      size: bytes.length,
      sha256: sha256(bytes),
      patient_id: patient.id,
      patient_number: patient.patient_number,
    });
  });

  it('never overwrites a file: FILE_EXISTS, exit 1, the file as it was and nothing recorded', async () => {
    const target = join(out, 'taken.zip');
    writeFileSync(target, 'keep me');
    const exports = () =>
      (data.db.prepare("SELECT count(*) AS n FROM audit_events WHERE action = 'patient.export'").get() as { n: number }).n;
    const before = exports();
    const result = await clinic('patient', 'export', patient.patient_number, '--out', target);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: FILE_EXISTS/);
    assert.equal(readFileSync(target, 'utf8'), 'keep me');
    assert.equal(exports(), before);
  });

  it('is a usage error (exit 2) for a folder that does not exist, or without --out', async () => {
    assert.equal((await clinic('patient', 'export', patient.patient_number, '--out', join(out, 'no-such-folder', 'x.zip'))).code, 2);
    assert.equal((await clinic('patient', 'export', patient.patient_number)).code, 2);
  });

  it('refuses an unknown patient: PATIENT_NOT_FOUND, exit 1, no file', async () => {
    const target = join(out, 'nobody.zip');
    const result = await clinic('patient', 'export', 'P-999', '--out', target);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: PATIENT_NOT_FOUND/);
    assert.ok(!readdirSync(out).includes('nobody.zip'));
  });

  it('leaves no file when a document no longer matches its SHA-256: DOCUMENT_FILE_DAMAGED', async () => {
    const damaged = createTestPatient(data.db, { first_name: 'Dora', last_name: 'Defekt' });
    const id = await upload(damaged, 'dora.pdf', Buffer.from('the stored bytes'));
    writeFileSync(documentFilePath(data.dataDir, damaged.id, id), 'THE STORED BYTES');
    const before = readdirSync(out).sort();
    const result = await clinic('patient', 'export', damaged.patient_number, '--out', join(out, 'dora.zip'));
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stderr, /DOCUMENT_FILE_DAMAGED/);
    assert.deepEqual(readdirSync(out).sort(), before, 'neither the file nor a temporary one is left');
  });
});

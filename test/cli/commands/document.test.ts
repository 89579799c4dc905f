import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { listPatientDocuments, type DocumentItem } from '../../../src/domain/documents/read-documents.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { createTestPatient } from '../../helpers/builders.js';
import { assertMatchesSchema } from '../../helpers/contract.js';
import { useDataDirs, useTestDatabase } from '../../helpers/fixtures.js';
import { programPath, programPlatform, runClinic } from '../../helpers/run-cli.js';

describe('clinic document save', () => {
  const data = useTestDatabase();
  const newDir = useDataDirs();
  let patient: Patient;
  let scanBytes: Buffer;
  let scanId: string;
  let out: string;
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);

  /** Stores `bytes` as `name` for the patient through the desk and returns the document's id. */
  async function upload(name: string, bytes: Buffer | string, ...extra: string[]): Promise<string> {
    const file = join(out, name);
    writeFileSync(file, bytes);
    const result = await clinic('upload-document', '--patient-id', patient.patient_number, '--file', file, '--json', ...extra);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout).id as string;
  }

  before(async () => {
    patient = createTestPatient(data.db, { first_name: 'Ada', last_name: 'Lovelace' });
    out = newDir();
    // Several read chunks: the copy is streamed.
    scanBytes = randomBytes(3 * 1024 * 1024 + 17);
    scanId = await upload('panoramic.pdf', scanBytes, '--type', 'xrays', '--title', 'Panoramic 2026');
  });

  it('writes the stored bytes to the file and says what it wrote', async () => {
    const target = join(out, 'copy.pdf');
    const result = await clinic('document', 'save', scanId, target);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(readFileSync(target).equals(scanBytes));
    if (programPlatform !== 'win32') assert.equal(statSync(target).mode & 0o777, 0o600);
    assert.equal(
      result.stdout,
      [
        'Document of P-000001 Ada Lovelace',
        'Number  D-000001',
        'Title   Panoramic 2026',
        'Type    xrays',
        'File    panoramic.pdf (application/pdf, 3.0 MiB)',
        result.stdout.split('\n')[5],
        `Saved 3.0 MiB to ${programPath(target)}; its SHA-256 is the upload's.`,
        '',
      ].join('\n'),
    );
    assert.match(result.stdout.split('\n')[5]!, /^Stored {2}\w{3} \d{2}\.\d{2}\.\d{4} \d{2}:\d{2}$/);
    assert.deepEqual(readdirSync(out).sort(), ['copy.pdf', 'panoramic.pdf'], 'no temporary file is left');
  });

  it('prints with --json the DocumentItem the API lists', async () => {
    const result = await clinic('document', 'save', scanId, join(out, 'as-json.pdf'), '--json');
    assert.equal(result.code, 0, result.stderr);
    const item = JSON.parse(result.stdout);
    assertMatchesSchema('DocumentItem', item);
    assert.deepEqual(
      item,
      listPatientDocuments(data.db, patient.id, {}).items.find((listed) => listed.id === scanId),
    );
  });

  it('refuses to replace a file unless --force, and then replaces it', async () => {
    const target = join(out, 'taken.pdf');
    writeFileSync(target, 'keep me');
    const refused = await clinic('document', 'save', scanId, target);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `error: FILE_EXISTS: ${programPath(target)} already exists; nothing was written.\nhint: choose another file name, or add --force to replace that file\n`,
    );
    assert.equal(readFileSync(target, 'utf8'), 'keep me');
    const forced = await clinic('document', 'save', scanId, target, '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.ok(readFileSync(target).equals(scanBytes));
  });

  it('takes the document’s number in any case, with or without its zeros (issue 42, finding 10)', async () => {
    for (const [index, ref] of ['D-000001', 'd-1', ' D-01 '].entries()) {
      const target = join(out, `by-number-${index}.pdf`);
      const result = await clinic('document', 'save', ref, target, '--json');
      assert.equal(result.code, 0, `${ref}: ${result.stderr}`);
      assert.equal(JSON.parse(result.stdout).id, scanId, ref);
      assert.ok(readFileSync(target).equals(scanBytes), ref);
    }
  });

  it('refuses an unknown id or number with DOCUMENT_NOT_FOUND and a malformed one by its argument, writing nothing', async () => {
    const unnumbered = await clinic('document', 'save', 'd-99', join(out, 'unknown.pdf'));
    assert.equal(unnumbered.code, 1);
    assert.match(
      unnumbered.stderr,
      /^error: DOCUMENT_NOT_FOUND: No document has the number D-99\.\nhint: `clinic document list P-42` lists/,
    );
    const unknown = await clinic('document', 'save', randomUUID(), join(out, 'unknown.pdf'), '--json');
    assert.equal(unknown.code, 1);
    assert.deepEqual(JSON.parse(unknown.stderr), { detail: { code: 'DOCUMENT_NOT_FOUND', message: 'No document has this id.' } });
    const malformed = await clinic('document', 'save', 'P-1', join(out, 'malformed.pdf'));
    assert.equal(malformed.code, 1);
    assert.match(
      malformed.stderr,
      /^ {2}<ref> "P-1": is neither a number on paper nor an id \(uuid_parsing\)\n {4}hint: the document's number \(D-000017, D-17\) or id: `clinic document list P-42`/m,
    );
    assert.equal(existsSync(join(out, 'unknown.pdf')) || existsSync(join(out, 'malformed.pdf')), false);
  });

  it('is a usage error (exit 2) for a folder that does not exist, which it does not make', async () => {
    const result = await clinic('document', 'save', scanId, join(out, 'no-such-folder', 'copy.pdf'));
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no such folder/);
    assert.equal(existsSync(join(out, 'no-such-folder')), false);
  });

  it('refuses a stored file that differs from its upload, leaving nothing behind', async () => {
    const id = await upload('letter.txt', 'the original letter');
    writeFileSync(join(data.dataDir, 'documents', patient.id, id), 'the altered letter!');
    const before = readdirSync(out).sort();
    const result = await clinic('document', 'save', id, join(out, 'letter-copy.txt'), '--json');
    assert.equal(result.code, 1);
    assert.equal(JSON.parse(result.stderr).detail.code, 'DOCUMENT_FILE_DAMAGED');
    assert.deepEqual(readdirSync(out).sort(), before);
  });
});

describe('clinic document list', () => {
  const data = useTestDatabase();

  it("lists every document of a patient, newest first, with its number; --json gives the API's DocumentItems", async () => {
    const patient = createTestPatient(data.db, { first_name: 'Ada', last_name: 'Lovelace' });
    const file = join(data.dataDir, 'referral.pdf');
    writeFileSync(file, 'bytes');
    for (const title of ['First', 'Second']) {
      const args = ['--patient-id', patient.id, '--file', file, '--title', title];
      assert.equal((await runClinic(['upload-document', '--data', data.dataDir, ...args])).code, 0);
    }
    const listed = await runClinic(['document', 'list', 'p-1', '--data', data.dataDir, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const items = JSON.parse(listed.stdout) as DocumentItem[];
    assert.deepEqual(items, listPatientDocuments(data.db, patient.id, {}).items);
    assert.deepEqual(
      items.map((item) => item.title),
      ['Second', 'First'],
    );
    const text = await runClinic(['document', 'list', 'P-000001', '--data', data.dataDir]);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'Documents of P-000001 Ada Lovelace');
    assert.deepEqual(
      items.map((item) => item.document_number),
      ['D-000002', 'D-000001'],
    );
    assert.match(lines[1]!, /^Number {4}Date +Type +Title +File +Size$/);
    assert.match(lines[2]!, /^D-000002 {2}\d{2}\.\d{2}\.\d{4} {2}other +Second +referral\.pdf +5 B$/);
    assert.match(lines[3]!, /^D-000001 .* First /);
    assert.doesNotMatch(text.stdout, new RegExp(items[0]!.id), 'the id is for --json');
    const unknown = await runClinic(['document', 'list', 'P-99', '--data', data.dataDir]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^error: PATIENT_NOT_FOUND: /);
  });
});

describe('clinic patient show: documents', () => {
  const data = useTestDatabase();

  it("prints each document's number, within 100 columns however long its title and name", async () => {
    const patient = createTestPatient(data.db);
    const file = join(data.dataDir, `${'a-very-long-file-name-'.repeat(5)}.pdf`);
    writeFileSync(file, 'bytes');
    const numbers: string[] = [];
    for (const type of ['communications', 'xrays']) {
      const args = ['--patient-id', patient.id, '--file', file, '--type', type, '--title', 'A title of many words '.repeat(4)];
      const result = await runClinic(['upload-document', '--data', data.dataDir, '--json', ...args]);
      assert.equal(result.code, 0, result.stderr);
      numbers.push(JSON.parse(result.stdout).document_number as string);
    }
    const shown = await runClinic(['patient', 'show', patient.patient_number, '--data', data.dataDir]);
    assert.equal(shown.code, 0, shown.stderr);
    const lines = shown.stdout.split('\n');
    for (const line of lines) assert.ok([...line].length <= 100, `wider than 100 columns (${[...line].length}): ${line}`);
    assert.deepEqual(numbers, ['D-000001', 'D-000002']);
    for (const number of numbers)
      assert.ok(
        lines.some((line) => line.trimStart().startsWith(`${number}  `)),
        `the number ${number} starts its row`,
      );
  });
});

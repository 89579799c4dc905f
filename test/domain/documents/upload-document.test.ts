import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient } from '../../helpers/builders.js';
import { runClinic, unwrapped, type RunOptions } from '../../helpers/run-cli.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { jsonOf } from '../../helpers/desk-output.js';
import { jsonAs } from '../../helpers/desk-schema.js';

describe('clinic upload-document', () => {
  const data = useTestDatabase();
  let patientId: string;
  let scan: string;
  let scanBytes: Buffer;

  before(() => {
    patientId = createPatient(data.db, buildPatient()).id;
    scanBytes = randomBytes(200_000);
    scan = join(data.dataDir, 'scan 2026.pdf');
    writeFileSync(scan, scanBytes);
    writeFileSync(join(data.dataDir, 'empty.pdf'), '');
  });

  const documentRows = () => data.db.prepare('SELECT * FROM documents').all() as Record<string, unknown>[];
  const leftovers = () => ({
    rows: documentRows().length,
    temp: existsSync(join(data.dataDir, 'tmp')) ? readdirSync(join(data.dataDir, 'tmp')).length : 0,
  });
  /** `clinic upload-document` on the test's data directory, with `args`. */
  const upload = (args: string[], options?: RunOptions) => runClinic(['upload-document', '--data', data.dataDir, ...args], options);
  /** `upload` of `file` for the test's patient, with `more` options. */
  const uploadFile = (file: string, more: string[] = [], options?: RunOptions) =>
    upload(['--patient-id', patientId, '--file', file, ...more], options);

  it('streams the file into the data directory and prints the Document with --json', async () => {
    const document = jsonAs(
      'Document',
      await uploadFile(scan, ['--json', '--type', 'scans', '--title', 'Scan', '--content-type', 'application/pdf']),
    );
    assert.deepEqual(Object.keys(document), ['id', 'filename', 'content_type', 'size', 'created_at', 'type', 'document_number']);
    assert.equal(document.filename, 'scan 2026.pdf');
    assert.equal(document.content_type, 'application/pdf');
    assert.equal(document.size, scanBytes.length);
    assert.equal(document.type, 'scans');
    assert.ok(readFileSync(join(data.dataDir, 'documents', patientId, document.id)).equals(scanBytes));
    const row = documentRows().find((r) => r.id === document.id)!;
    assert.equal(row.sha256, createHash('sha256').update(scanBytes).digest('hex'));
    assert.equal(row.title, 'Scan');
  });

  it('defaults the type to other and the content type to the one of the file name', async () => {
    const document = jsonOf(await uploadFile(scan, ['--json']));
    assert.equal(document.type, 'other');
    assert.equal(document.content_type, 'application/pdf');
  });

  for (const [name, contentType] of [
    ['X-RAY.JPG', 'image/jpeg'],
    ['letter.txt', 'text/plain'],
    ['study.dcm', 'application/dicom'],
    ['notes.unknown-extension', 'application/octet-stream'],
    ['no-extension', 'application/octet-stream'],
  ]) {
    it(`stores ${name} without --content-type as ${contentType}`, async () => {
      const file = join(data.dataDir, name!);
      writeFileSync(file, 'bytes');
      assert.equal(jsonOf(await uploadFile(file, ['--json'])).content_type, contentType);
    });
  }

  const refusals: { title: string; args: () => string[]; code: string }[] = [
    { title: 'an unknown patient', args: () => ['--patient-id', randomUUID(), '--file', scan], code: 'PATIENT_NOT_FOUND' },
    {
      title: 'an unknown type',
      args: () => ['--patient-id', patientId, '--file', scan, '--type', 'selfie'],
      code: 'DOCUMENT_TYPE_INVALID',
    },
    { title: 'an empty file', args: () => ['--patient-id', patientId, '--file', join(data.dataDir, 'empty.pdf')], code: 'DOCUMENT_EMPTY' },
    {
      title: 'a file over the limit',
      args: () => ['--patient-id', patientId, '--file', scan, '--document-limit-mb', '0.1'],
      code: 'DOCUMENT_TOO_LARGE',
    },
    { title: 'a malformed patient id', args: () => ['--patient-id', 'patient-one', '--file', scan], code: 'uuid_parsing' },
  ];
  for (const { title, args, code } of refusals) {
    it(`exits 1 with ${code} for ${title}, storing nothing`, async () => {
      const before = leftovers();
      const result = await upload(args());
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, new RegExp(code));
      assert.deepEqual(leftovers(), { rows: before.rows, temp: 0 });
    });
  }

  it('exits 2 for a --file that does not exist', async () => {
    const result = await uploadFile(join(data.dataDir, 'nope.pdf'));
    assert.equal(result.code, 2);
    assert.match(unwrapped(result.stderr), /no such file/);
  });

  it('stores --content-type as type/subtype in lower case, its parameters dropped as the API drops them', async () => {
    const result = await uploadFile(scan, ['--json', '--content-type', 'Text/Plain; charset="utf-8"']);
    assert.equal(jsonOf(result).content_type, 'text/plain');
  });

  for (const [title, contentType] of [
    ['a header injection', 'text/html\r\nSet-Cookie: a=b'],
    ['no subtype', 'pdf'],
    ['a value over 255 characters', `application/${'x'.repeat(244)}`],
    ['an empty value', ''],
  ]) {
    it(`exits 2 for a --content-type that is no media type (${title}), storing nothing`, async () => {
      const before = leftovers();
      const result = await uploadFile(scan, ['--content-type', contentType!]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(unwrapped(result.stderr), /--content-type[\s\S]*media type/);
      assert.deepEqual(leftovers(), { rows: before.rows, temp: 0 });
    });
  }

  it('exits 2 without --patient-id', async () => {
    const result = await upload(['--file', scan]);
    assert.equal(result.code, 2);
  });

  it('takes its limit from CLINIC_DOCUMENT_LIMIT_MB, and a bad value stops only the commands that read it', async () => {
    const before = leftovers();
    const tooSmall = await uploadFile(scan, [], { env: { CLINIC_DOCUMENT_LIMIT_MB: '0.1' } });
    assert.equal(tooSmall.code, 1, tooSmall.stderr);
    assert.match(tooSmall.stderr, /DOCUMENT_TOO_LARGE/);
    assert.deepEqual(leftovers(), { rows: before.rows, temp: 0 });

    const bad = { env: { CLINIC_DOCUMENT_LIMIT_MB: 'lots' } };
    const refused = await uploadFile(scan, [], bad);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /CLINIC_DOCUMENT_LIMIT_MB/);
    const unaffected = await runClinic(['doctor', 'list', '--data', data.dataDir, '--json'], bad);
    assert.equal(unaffected.code, 0, unaffected.stderr);
  });
});

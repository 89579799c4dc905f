import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { type Db } from '../../../src/db/drivers/sqlite-driver.js';
import { assertChain, trailOf } from '../../helpers/audit-chain.js';
import { copyReleaseFixture, useRestoredBackup } from '../../helpers/fixtures.js';
import { runClinic } from '../../helpers/run-cli.js';
import { assertUpgradesToNewSchema } from '../../helpers/schema-of.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { readDatabase } from '../../helpers/release-database.js';

/**
 * The migration to document numbers (schema 10, interface 1.3.0: D-000017), on a data directory
 * and a backup made by release 1.2.0 (test/fixtures/release-1.2.0/README.md says how).
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.2.0', import.meta.url));
const secrets = JSON.parse(readFileSync(join(fixture, 'keys.json'), 'utf8')) as Record<'praxis_software', { id: string; key: string }>;

/** What release 1.2.0 left: P-000001's one document, "Röntgen 2026". */
const MUELLER = '5b2730a5-4a7d-42a4-ac54-47eed835ffb7';
const SCAN = '0924dcd3-be1b-4acb-b1c9-dd51f3a1c5f1';
const SCAN_FILE = join('documents', MUELLER, SCAN);
const SAME_MILLISECOND = '00000000-0000-4000-8000-000000000002';
const EARLIER = '00000000-0000-4000-8000-000000000001';
const OLD_COLUMNS = ['id', 'patient_id', 'filename', 'content_type', 'size', 'sha256', 'title', 'type', 'created_at'];

const documentsOf = (db: Db, columns: readonly string[]) => db.prepare(`SELECT ${columns.join(', ')} FROM documents ORDER BY id`).all();

describe('upgrading a data directory made by release 1.2.0: documents by number', () => {
  let server: TestServer;
  let dataDir: string;
  let out: string;
  const asOld = { key: secrets.praxis_software.key };

  before(async () => {
    dataDir = copyReleaseFixture(fixture);
    out = mkdtempSync(join(tmpdir(), 'clinic-out-'));
    server = await startTestServer({}, dataDir);
  });
  after(async () => {
    await server.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('keeps the document’s row and file, numbers it D-000001, and the audit trail still verifies', async () => {
    const old = readDatabase(fixture, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), 6);
      return documentsOf(db, OLD_COLUMNS);
    });
    readDatabase(dataDir, (db) => {
      assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assert.deepEqual(documentsOf(db, OLD_COLUMNS), old);
      assert.deepEqual(documentsOf(db, ['id', 'document_number']), [{ id: SCAN, document_number: 'D-000001' }]);
    });
    assert.deepEqual(readFileSync(join(dataDir, SCAN_FILE)), readFileSync(join(fixture, SCAN_FILE)));
    assertChain(trailOf(dataDir));
    const verify = await runClinic(['audit', 'verify', '--data', dataDir]);
    assert.equal(verify.code, 0, verify.stderr);
  });

  it('gives a 1.2.0 key the document with document_number after the fields it knew', async () => {
    const list = await server.request('GET', `/patients/${MUELLER}/documents`, asOld);
    assert.equal(list.status, 200);
    const [item] = list.body as Record<string, unknown>[];
    assert.deepEqual(Object.keys(item!), [
      'id',
      'filename',
      'content_type',
      'size',
      'created_at',
      'type',
      'title',
      'sha256',
      'document_number',
    ]);
    assert.equal(item!.document_number, 'D-000001');
  });

  it('saves the old document by its new number at the desk, and numbers the next upload D-000002', async () => {
    const saved = await runClinic(['document', 'save', 'd-1', join(out, 'scan.pdf'), '--data', dataDir]);
    assert.equal(saved.code, 0, saved.stderr);
    assert.deepEqual(readFileSync(join(out, 'scan.pdf')), readFileSync(join(fixture, SCAN_FILE)));
    const letter = join(out, 'letter.txt');
    writeFileSync(letter, 'Befund folgt.');
    const upload = await runClinic(['upload-document', '--patient-id', 'P-1', '--file', letter, '--json', '--data', dataDir]);
    assert.equal(upload.code, 0, upload.stderr);
    assert.equal(JSON.parse(upload.stdout).document_number, 'D-000002');
    const check = await runClinic(['check', '--data', dataDir]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe('the migration to document numbers, on documents uploaded out of rowid order', () => {
  it('numbers them by upload time, then by rowid within one millisecond, and goes on after the largest', async () => {
    const dataDir = copyReleaseFixture(fixture);
    try {
      // Rows the old schema takes as they are: one in the fixture's document's very millisecond, one before it.
      readDatabase(dataDir, (db) => {
        const insert = db.prepare(
          `INSERT INTO documents (${OLD_COLUMNS.join(', ')}) VALUES (?, '${MUELLER}', 'a.pdf', 'application/pdf', 1, '00', NULL, 'other', ?)`,
        );
        insert.run(SAME_MILLISECOND, '2026-11-28T14:28:05.582Z');
        insert.run(EARLIER, '2026-11-01T08:00:00.000Z');
      });
      // clinic upgrade migrates it (a desk command would refuse it: SCHEMA_UPGRADE_REQUIRED).
      const upgrade = await runClinic(['upgrade', '--data', dataDir]);
      assert.equal(upgrade.code, 0, upgrade.stderr);
      readDatabase(dataDir, (db) => {
        assert.deepEqual(db.prepare('SELECT document_number, id FROM documents ORDER BY seq').all(), [
          { document_number: 'D-000001', id: EARLIER },
          { document_number: 'D-000002', id: SCAN },
          { document_number: 'D-000003', id: SAME_MILLISECOND },
        ]);
        assert.deepEqual(db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'documents'").get(), { seq: 3 });
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a backup made by release 1.2.0', () => {
  const target = useRestoredBackup(fixture);

  it('restores with its document numbered D-000001, which the desk lists', async () => {
    readDatabase(target(), (db) =>
      assert.deepEqual(documentsOf(db, ['id', 'document_number']), [{ id: SCAN, document_number: 'D-000001' }]),
    );
    assert.deepEqual(readFileSync(join(target(), SCAN_FILE)), readFileSync(join(fixture, SCAN_FILE)));
    const list = await runClinic(['document', 'list', 'P-1', '--data', target()]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^D-000001 /m);
    assertChain(trailOf(target()));
  });
});

describe('the migrations from schema version 6', () => {
  it('leave a database of release 1.2.0 with exactly the schema of a new one', () => {
    assertUpgradesToNewSchema(fixture);
  });
});

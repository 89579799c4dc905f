import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { create, extract } from 'tar';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.js';
import { addDoctor, addService } from '../../src/domain/catalog.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { setClinicTimeZone, setModuleEnabled } from '../../src/domain/settings.js';
import { buildPatient } from '../helpers/builders.js';
import { addDocument, addInvoice } from '../helpers/module-tables.js';
import { runClinic, startServeProcess } from '../helpers/run-cli.js';
import { makeDataDir } from '../helpers/test-server.js';
import { checkedFetch } from '../helpers/contract.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = makeDataDir();
  dirs.push(dir);
  return dir;
}

/** Every row of every table (sqlite_sequence included: patient numbers are never reused). */
function dumpTables(db: Db): Record<string, string[]> {
  const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all();
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      db
        .prepare(`SELECT * FROM "${name}"`)
        .all()
        .map((row) => JSON.stringify(row))
        .sort(),
    ]),
  );
}

/** Every file under `dir` (relative path → content), the database's own files left out. */
function filesUnder(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files.set(join(entry.parentPath, entry.name).slice(dir.length + 1), readFileSync(join(entry.parentPath, entry.name)));
  }
  for (const name of [...files.keys()]) if (name.startsWith('clinic.')) files.delete(name);
  return files;
}

/** A data directory with something of every kind: patients, keys, catalog, settings, documents, invoices. */
function populatedDataDir(): { dataDir: string; key: string } {
  const dataDir = tempDir();
  const db = openDatabase(dataDir);
  try {
    const ada = createPatient(db, buildPatient());
    createPatient(db, buildPatient({ first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.org' }));
    const key = createApiKey(db, { name: 'integration' }).key;
    revokeApiKey(db, createApiKey(db, { name: 'old laptop' }).id);
    addDoctor(db, { name: 'Dr. Grey', color: '#123456' });
    addService(db, { name: 'Cleaning', duration_min: 45, price: '80.50', color: '#00ff00' });
    setModuleEnabled(db, 'payments', false);
    setClinicTimeZone(db, 'Europe/Vienna');
    addDocument(db, dataDir, ada.id, randomBytes(300_000));
    addDocument(db, dataDir, ada.id, Buffer.from('%PDF-1.7 consent'));
    addInvoice(db, 8_050, [8_050]);
    return { dataDir, key };
  } finally {
    db.close();
  }
}

describe('clinic backup and restore', { timeout: 180_000 }, () => {
  it('round-trips patients, keys, settings, catalog and documents without losing anything', async () => {
    const { dataDir, key } = populatedDataDir();
    const file = join(tempDir(), 'clinic-backup.tar.gz');
    const backup = await runClinic(['backup', file, '--json', '--data', dataDir]);
    assert.equal(backup.code, 0, backup.stderr);
    const summary = JSON.parse(backup.stdout) as { file: string; documents: number; bytes: number };
    assert.equal(summary.file, file);
    assert.equal(summary.documents, 2);

    const restoredDir = join(tempDir(), 'restored');
    const restore = await runClinic(['restore', file, '--data', restoredDir]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /restored the backup of .* 2 document\(s\)/);

    const [original, restored] = [openDatabase(dataDir), openDatabase(restoredDir)];
    try {
      assert.deepEqual(dumpTables(restored), dumpTables(original));
    } finally {
      original.close();
      restored.close();
    }
    assert.deepEqual(filesUnder(restoredDir), filesUnder(dataDir));
    assert.equal((await runClinic(['check', '--data', restoredDir])).code, 0);

    // The restored keys work on a server over the restored directory.
    const serve = await startServeProcess(['--data', restoredDir]);
    try {
      const doctors = await checkedFetch(`${serve.baseUrl}/doctors`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(doctors.status, 200);
      assert.deepEqual(
        ((await doctors.json()) as { name: string }[]).map((d) => d.name),
        ['Dr. Grey'],
      );
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('makes a consistent backup while the server is writing', async () => {
    const { dataDir, key } = populatedDataDir();
    const serve = await startServeProcess(['--data', dataDir]);
    const file = join(tempDir(), 'busy.tar.gz');
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const response = await checkedFetch(`${serve.baseUrl}/patients`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(buildPatient({ last_name: `Busy ${written}` })),
        });
        assert.equal(response.status, 201);
        written += 1;
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const backup = await runClinic(['backup', file, '--data', dataDir]);
      assert.equal(backup.code, 0, backup.stderr);
    } finally {
      writing = false;
      await writer;
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    const restoredDir = join(tempDir(), 'restored');
    assert.equal((await runClinic(['restore', file, '--data', restoredDir])).code, 0);
    assert.equal((await runClinic(['check', '--data', restoredDir])).code, 0);
    const db = openDatabase(restoredDir);
    try {
      const { n } = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM patients').get() ?? { n: 0 };
      assert.ok(n >= 2 && n <= 2 + written, `${n} patients restored, ${written} written meanwhile`);
    } finally {
      db.close();
    }
  });

  it('refuses to restore into a data directory that is not empty, and leaves it alone', async () => {
    const { dataDir } = populatedDataDir();
    const file = join(tempDir(), 'b.tar.gz');
    assert.equal((await runClinic(['backup', file, '--data', dataDir])).code, 0);
    const occupied = tempDir();
    writeFileSync(join(occupied, 'notes.txt'), 'keep me');
    const result = await runClinic(['restore', file, '--data', occupied]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: DATA_DIRECTORY_NOT_EMPTY: .* is not empty; restore only into an empty or new data directory/m);
    assert.deepEqual(readdirSync(occupied), ['notes.txt']);
  });

  it('refuses a backup whose document was altered after it was written, leaving the directory empty', async () => {
    const { dataDir } = populatedDataDir();
    const work = tempDir();
    const file = join(work, 'b.tar.gz');
    assert.equal((await runClinic(['backup', file, '--data', dataDir])).code, 0);
    // Unpack, change one document's bytes, pack again with the original manifest.
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    await extract({ file, cwd: unpacked });
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as { entries: { path: string }[] };
    const document = manifest.entries.find((entry) => entry.path.startsWith('documents/'))?.path ?? '';
    const bytes = readFileSync(join(unpacked, document));
    bytes[0] = (bytes[0] ?? 0) ^ 0xff;
    writeFileSync(join(unpacked, document), bytes);
    const tampered = join(work, 'tampered.tar.gz');
    await create({ file: tampered, gzip: true, cwd: unpacked }, ['manifest.json', 'clinic.db', 'documents']);

    const restoredDir = join(work, 'restored');
    const result = await runClinic(['restore', tampered, '--data', restoredDir]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(
        `^error: BACKUP_DAMAGED: The backup cannot be used: it is damaged or was altered: ${document} does not match its SHA-256`,
        'm',
      ),
    );
    assert.deepEqual(readdirSync(restoredDir), []);
  });

  it('refuses a file that is not a clinic backup', async () => {
    const work = tempDir();
    const file = join(work, 'other.tar.gz');
    writeFileSync(join(work, 'readme.txt'), 'hello');
    await create({ file, gzip: true, cwd: work }, ['readme.txt']);
    const result = await runClinic(['restore', file, '--data', join(work, 'restored')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: BACKUP_DAMAGED: .*not a clinic backup/m);
  });

  it('never overwrites an existing file, and never backs up a directory without a database', async () => {
    const { dataDir } = populatedDataDir();
    const file = join(tempDir(), 'exists.tar.gz');
    writeFileSync(file, 'yesterday');
    const result = await runClinic(['backup', file, '--data', dataDir]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^error: BACKUP_FILE_EXISTS: .* already exists; a backup never overwrites a file/m);
    assert.equal(readFileSync(file, 'utf8'), 'yesterday');
    const empty = tempDir();
    const none = await runClinic(['backup', join(empty, 'x.tar.gz'), '--data', empty]);
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /NO_DATABASE: There is no clinic database at .*clinic\.db\. Point at the clinic.s data directory with --data DIR or the CLINIC_DATA environment variable/,
    );
    assert.equal(existsSync(join(empty, 'clinic.db')), false);
  });
});

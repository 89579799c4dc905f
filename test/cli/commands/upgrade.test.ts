import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from '../../../src/db/migrations.js';
import { sqliteDriver } from '../../../src/db/drivers/sqlite-driver.js';
import { copyReleaseFixture } from '../../helpers/fixtures.js';
import { readDatabase, columnsOf, rowsOf } from '../../helpers/release-database.js';
import {
  programPath,
  runClinic,
  startServeProcess,
  STOP_SIGNAL,
  unwrapped,
  type CliResult,
  type ServeProcess,
} from '../../helpers/run-cli.js';
import { schemaOf } from '../../helpers/schema-of.js';
import { makeDataDir } from '../../helpers/fixtures.js';

/**
 * Installing a new version (issue 42, finding 6) on the data directory release 1.2.0 left
 * (test/fixtures/release-1.2.0, schema 6): a desk command refuses it and changes nothing,
 * `clinic upgrade` (or `serve`) writes a verified backup and then migrates, and that backup is
 * the way back.
 */
const fixture = fileURLToPath(new URL('../../fixtures/release-1.2.0', import.meta.url));
const OLD_SCHEMA = 6;
/** The tables whose rows the desk shows: every one kept with its old columns. */
const TABLES = ['patients', 'appointments', 'invoices', 'payments', 'refunds', 'documents', 'doctors', 'services'];

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
};
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const schemaVersionIn = (dataDir: string) => readDatabase(dataDir, (db) => db.pragma('user_version', { simple: true }) as number);
/** Every row of TABLES with the columns release 1.2.0 had. */
const oldRows = (dataDir: string, columns: Record<string, string[]>) =>
  readDatabase(dataDir, (db) => Object.fromEntries(TABLES.map((table) => [table, rowsOf(db, table, columns[table]!)])));
const backupsIn = (dataDir: string) => readdirSync(join(dataDir, 'upgrade-backups')).map((name) => join(dataDir, 'upgrade-backups', name));
/** The manifest.json of a backup archive, read with the system's tar. */
const manifestOf = (archive: string) =>
  JSON.parse(
    execFileSync('/usr/bin/tar', ['-xzOf', archive, 'manifest.json'], { encoding: 'utf8', env: { ...process.env, PATH: '/usr/bin:/bin' } }),
  ) as { schema_version: number };

describe('a data directory of release 1.2.0 met by this program', { concurrency: 1 }, () => {
  let dataDir: string;
  let columns: Record<string, string[]>;
  let before12: Record<string, unknown[]>;
  const made: string[] = [];
  const clinic = (...args: string[]) => runClinic([...args, '--data', dataDir]);

  before(() => {
    dataDir = copyReleaseFixture(fixture);
    columns = readDatabase(dataDir, (db) => Object.fromEntries(TABLES.map((table) => [table, columnsOf(db, table)])));
    before12 = oldRows(dataDir, columns);
  });
  after(() => {
    for (const dir of [dataDir, ...made]) rmSync(dir, { recursive: true, force: true });
  });

  it('a desk command refuses it with SCHEMA_UPGRADE_REQUIRED naming clinic upgrade, and changes nothing', async () => {
    const bytes = sha256(join(dataDir, 'clinic.db'));
    const found = await clinic('patient', 'find', 'huber');
    assert.equal(found.code, 1);
    assert.equal(found.stdout, '');
    const text = unwrapped(found.stderr);
    assert.match(
      text,
      /^error: SCHEMA_UPGRADE_REQUIRED: The database in .* has schema version 6, older than this program's \(\d+\); nothing was changed/,
    );
    assert.match(text, /Run clinic upgrade with the same --data/);
    const json = await clinic('patient', 'find', 'huber', '--json');
    assert.equal(json.code, 1);
    assert.equal((JSON.parse(json.stderr) as { detail: { code: string } }).detail.code, 'SCHEMA_UPGRADE_REQUIRED');
    // clinic check too, once, not as a failure of each check.
    const check = await clinic('check');
    assert.equal(check.code, 1);
    assert.match(check.stderr, /^error: SCHEMA_UPGRADE_REQUIRED: /);
    assert.equal(sha256(join(dataDir, 'clinic.db')), bytes);
    assert.equal(schemaVersionIn(dataDir), OLD_SCHEMA);
    assert.equal(existsSync(join(dataDir, 'upgrade-backups')), false);
  });

  it('clinic upgrade writes a verified backup of the old schema, migrates, and says both', async () => {
    const out = unwrapped(ok(await clinic('upgrade')));
    const [backup] = backupsIn(dataDir);
    assert.ok(backup !== undefined);
    assert.match(backup, /clinic-schema-6-\d{4}-\d{2}-\d{2}T\d{6}Z\.tar\.gz$/);
    assert.ok(out.includes(`backed up the database as it was (schema version 6,`), out);
    assert.ok(out.includes(`to ${programPath(backup)} (`), out);
    assert.match(out, new RegExp(`upgraded the database in .* from schema version 6 to ${SCHEMA_VERSION} \\(clinic `));
    assert.match(out, /the way back, should it be needed: clinic restore /);
    // The manifest records the schema the backup's database has, not this program's.
    assert.equal(manifestOf(backup).schema_version, OLD_SCHEMA);
    assert.equal(schemaVersionIn(dataDir), SCHEMA_VERSION);
    const fresh = makeDataDir();
    made.push(fresh);
    assert.deepEqual(schemaOf(dataDir), schemaOf(fresh));
    assert.deepEqual(oldRows(dataDir, columns), before12);
    // The desk works on it again.
    assert.match(ok(await clinic('patient', 'find', 'huber')), /P-000003 +Huber, Anna/);
    ok(await clinic('check'));
  });

  it('on an up-to-date database says so, exits 0, and writes nothing', async () => {
    const bytes = sha256(join(dataDir, 'clinic.db'));
    const out = unwrapped(ok(await clinic('upgrade')));
    assert.match(
      out,
      new RegExp(`^the database in .* is up to date \\(schema version ${SCHEMA_VERSION}, clinic [0-9.]+\\); nothing was changed\\n$`),
    );
    const json = JSON.parse(ok(await clinic('upgrade', '--json'))) as Record<string, unknown>;
    assert.deepEqual(json, {
      data_dir: programPath(dataDir),
      schema_version_before: SCHEMA_VERSION,
      schema_version: SCHEMA_VERSION,
      upgraded: false,
      backup: null,
    });
    assert.equal(backupsIn(dataDir).length, 1);
    assert.equal(sha256(join(dataDir, 'clinic.db')), bytes);
  });

  it('the way back: the backup restores into an empty directory with every old row, and is upgraded there', async () => {
    const [backup] = backupsIn(dataDir);
    const target = makeDataDir();
    made.push(target);
    const restored = JSON.parse(ok(await runClinic(['restore', backup!, '--json', '--data', target]))) as Record<string, unknown>;
    assert.equal(restored.documents, 1);
    assert.deepEqual(oldRows(target, columns), before12);
    assert.equal(schemaVersionIn(target), SCHEMA_VERSION);
    assert.match(unwrapped(ok(await runClinic(['upgrade', '--data', target]))), /is up to date/);
    ok(await runClinic(['check', '--data', target]));
    assert.match(ok(await runClinic(['patient', 'find', 'huber', '--data', target])), /P-000003 +Huber, Anna/);
  });
});

describe('clinic upgrade --json, and serve on an older schema', { concurrency: 1 }, () => {
  const dirs: string[] = [];
  let serve: ServeProcess | undefined;
  after(async () => {
    if (serve !== undefined && serve.child.exitCode === null) {
      serve.child.kill(STOP_SIGNAL);
      await serve.exited;
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const copy = () => {
    const dir = copyReleaseFixture(fixture);
    dirs.push(dir);
    return dir;
  };

  it('--json gives the backup written and both schema versions; --backup names its file', async () => {
    const dataDir = copy();
    const file = join(makeDataDir(), 'before', 'clinic-1.2.0.tar.gz');
    dirs.push(join(file, '..', '..'));
    const json = JSON.parse(ok(await runClinic(['upgrade', '--backup', file, '--json', '--data', dataDir]))) as {
      schema_version_before: number;
      schema_version: number;
      upgraded: boolean;
      backup: { file: string; documents: number; bytes: number };
    };
    assert.deepEqual([json.schema_version_before, json.schema_version, json.upgraded], [OLD_SCHEMA, SCHEMA_VERSION, true]);
    assert.equal(json.backup.file, programPath(file));
    assert.equal(json.backup.documents, 1);
    assert.equal(readFileSync(file).length, json.backup.bytes);
    assert.equal(existsSync(join(dataDir, 'upgrade-backups')), false);
  });

  it('serve migrates it after the same verified backup, and clinic upgrade is refused while it runs', async () => {
    const dataDir = copy();
    serve = await startServeProcess(['--data', dataDir]);
    const [backup] = backupsIn(dataDir);
    const logged = serve.logLines.find((line) => line.event === 'database_upgraded');
    assert.deepEqual(logged, {
      ...logged,
      schema_version_before: OLD_SCHEMA,
      schema_version: SCHEMA_VERSION,
      backup: programPath(backup!),
    });
    assert.equal(manifestOf(backup!).schema_version, OLD_SCHEMA);
    assert.equal(schemaVersionIn(dataDir), SCHEMA_VERSION);
    const refused = await runClinic(['upgrade', '--data', dataDir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: SERVER_ALREADY_RUNNING: /);
  });

  it('a database of a newer program is refused DATABASE_TOO_NEW and left as it is', async () => {
    const dataDir = makeDataDir();
    dirs.push(dataDir);
    ok(await runClinic(['init', '--data', dataDir]));
    const db = sqliteDriver().open(join(dataDir, 'clinic.db'));
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const refused = await runClinic(['upgrade', '--data', dataDir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: DATABASE_TOO_NEW: /);
    assert.equal(existsSync(join(dataDir, 'upgrade-backups')), false);
    assert.equal(schemaVersionIn(dataDir), SCHEMA_VERSION + 1);
  });
});

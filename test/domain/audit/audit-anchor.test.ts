import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { sqliteDriver } from '../../../src/db/drivers/sqlite-driver.js';
import { canonical, type AuditEvent } from '../../helpers/audit-chain.js';
import { entriesOf, craftArchive } from '../../helpers/backup-fixtures.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import {
  nobodySkipReason,
  programPath,
  programPlatform,
  runAsNobody,
  runClinic,
  startServeProcess,
  STOP_SIGNAL,
  type CliResult,
} from '../../helpers/run-cli.js';

/**
 * Issue 39, M2: whoever can write clinic.db (the desk group may) could rewrite the trail
 * undetected: drop the triggers, delete a patient's events, chain the hashes anew, put the
 * triggers back, and `audit verify` and `clinic check` said ok. The trail's head is now anchored
 * in checkpoints signed with a key only the server's user can read, written by `clinic backup`
 * and `clinic serve`; `audit verify` (as that user) holds the trail to every one of them.
 */

const tempDir = useDataDirs();
const ok = (result: CliResult) => {
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return result;
};
const clinicIn = (dataDir: string, ...args: string[]) => runClinic([...args, '--data', dataDir]);

interface Verified {
  ok: boolean;
  events: number;
  last_seq: number;
  last_hash: string;
  anchor?: {
    state: string;
    checkpoints?: number;
    last_checkpoint?: { seq: number; kind: string } | null;
    unanchored_events?: number;
    restored?: { backup_last_seq: number; backup_created_at: string } | null;
    reason?: string;
  };
}

/** `audit verify --json` that succeeded. */
async function verified(dataDir: string): Promise<Verified> {
  return JSON.parse(ok(await clinicIn(dataDir, 'audit', 'verify', '--json')).stdout) as Verified;
}

/** `audit verify --json` that failed: its exit code and coded error. */
async function refusal(dataDir: string): Promise<{ code: number; error: { code: string; seq?: number; message: string } }> {
  const result = await clinicIn(dataDir, 'audit', 'verify', '--json');
  assert.notEqual(result.code, 0, result.stdout);
  return { code: result.code, error: (JSON.parse(result.stderr) as { detail: { code: string; seq?: number; message: string } }).detail };
}

/** The audit_trail check's findings of `clinic check --json`, and its exit code. */
async function checkFindings(dataDir: string): Promise<{ code: number; findings: string[] }> {
  const check = await clinicIn(dataDir, 'check', '--json');
  const report = JSON.parse(check.stdout) as { checks: { name: string; findings: string[] }[] };
  return { code: check.code, findings: report.checks.find((c) => c.name === 'audit_trail')!.findings };
}

/** A copy of a data directory, the anchor with it, as a test may tamper with one and keep the other. */
function copyOf(dataDir: string): string {
  const copy = tempDir();
  cpSync(dataDir, copy, { recursive: true });
  return copy;
}

/**
 * The attack of M2, as a member of the desk group can run it on the database with SQL: every
 * trigger of the trail dropped, `sql` run (a field changed), the events `remove` picks deleted,
 * the rest numbered 1, 2, 3, … again and every hash chained anew as the program chains them, and
 * the triggers put back. Works on 1.2.0's table (audit_events) and on schema 7's (audit_trail),
 * so that the test shows what each program finds.
 */
function rewriteTrail(dataDir: string, change: { remove?: (event: AuditEvent) => boolean; sql?: (compact: boolean) => string }): void {
  const db = sqliteDriver().open(join(dataDir, 'clinic.db'));
  try {
    const compact = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'audit_trail'").get() !== undefined;
    const table = compact ? 'audit_trail' : 'audit_events';
    const triggers = db
      .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name LIKE 'audit%'")
      .all();
    db.transaction(() => {
      for (const trigger of triggers) db.exec(`DROP TRIGGER ${trigger.name}`);
      if (change.sql !== undefined) db.exec(change.sql(compact));
      const events = db
        .prepare<[], AuditEvent & { detail: string | null }>('SELECT * FROM audit_events ORDER BY seq')
        .all()
        .map((event) => ({ ...event, detail: event.detail === null ? null : (JSON.parse(event.detail) as Record<string, unknown>) }));
      const removed = events.filter((event) => change.remove?.(event) === true);
      for (const event of removed) db.prepare(`DELETE FROM ${table} WHERE seq = ?`).run(event.seq);
      let prev = '0'.repeat(64);
      events
        .filter((event) => !removed.includes(event))
        .forEach((event, index) => {
          const { hash: _old, ...fields } = { ...event, seq: index + 1, prev_hash: prev };
          const hash = createHash('sha256').update(canonical(fields), 'utf8').digest('hex');
          if (compact)
            db.prepare('UPDATE audit_trail SET seq = ?, hash = ?, prev_hash = NULL WHERE seq = ?').run(
              index + 1,
              Buffer.from(hash, 'hex'),
              event.seq,
            );
          else db.prepare('UPDATE audit_events SET seq = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(index + 1, prev, hash, event.seq);
          prev = hash;
        });
      for (const trigger of triggers) db.exec(trigger.sql);
    })();
  } finally {
    db.close();
  }
}

describe('the audit trail anchored where the desk cannot write', { timeout: 600_000, concurrency: 1 }, () => {
  let dataDir: string;
  let olderDatabase: string;
  let backupFile: string;
  let petra: string;

  before(async () => {
    dataDir = tempDir();
    ok(await clinicIn(dataDir, 'init'));
    const anna = JSON.parse(
      ok(
        await clinicIn(
          dataDir,
          'create-patient',
          '--first-name',
          'Anna',
          '--last-name',
          'Anker',
          '--email',
          'anna@example.org',
          '--mobile',
          '+43 660 1',
          '--json',
        ),
      ).stdout,
    ) as { patient_number: string };
    ok(await clinicIn(dataDir, 'patient', 'show', anna.patient_number));
    ok(await clinicIn(dataDir, 'patient', 'show', anna.patient_number));
    // Events 1-3; the backup anchors them (checkpoint at #3), then records its data.export (#4).
    backupFile = join(tempDir(), 'before-petra.tar.gz');
    ok(await clinicIn(dataDir, 'backup', programPath(backupFile)));
    olderDatabase = join(tempDir(), 'older.db');
    const copy = sqliteDriver().open(join(dataDir, 'clinic.db'));
    copy.exec(`VACUUM INTO '${olderDatabase.replace(/'/g, "''")}'`);
    copy.close();
    const created = JSON.parse(
      ok(
        await clinicIn(
          dataDir,
          'create-patient',
          '--first-name',
          'Petra',
          '--last-name',
          'Pfeil',
          '--email',
          'petra@example.org',
          '--mobile',
          '+43 660 2',
          '--json',
        ),
      ).stdout,
    ) as { id: string; patient_number: string };
    petra = created.id;
    ok(await clinicIn(dataDir, 'patient', 'show', created.patient_number));
    ok(await clinicIn(dataDir, 'patient', 'find', 'pfeil'));
    ok(await clinicIn(dataDir, 'patient', 'show', anna.patient_number));
    // Events 5-8; the server anchors the trail at its start and its stop (checkpoint at #8).
    const serve = await startServeProcess(['--data', dataDir]);
    serve.child.kill(STOP_SIGNAL);
    assert.equal((await serve.exited).code, 0, serve.output().stderr);
  });

  it('keeps its key and checkpoints in a folder of the server’s user alone, made so, and verifies against them', async () => {
    const folder = join(dataDir, 'audit-anchor');
    if (programPlatform !== 'win32') {
      assert.equal(statSync(folder).mode & 0o777, 0o700);
      for (const file of ['key', 'checkpoints']) assert.equal(statSync(join(folder, file)).mode & 0o777, 0o600, file);
    }
    assert.deepEqual(readdirSync(folder).sort(), ['checkpoints', 'key']);
    const lines = readFileSync(join(folder, 'checkpoints'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; kind: string; hmac: string });
    assert.deepEqual(
      lines.map((line) => [line.seq, line.kind]),
      [
        [3, 'backup'],
        [8, 'serve'],
      ],
    );
    assert.ok(lines.every((line) => /^[0-9a-f]{64}$/.test(line.hmac)));

    const result = await verified(dataDir);
    assert.deepEqual([result.ok, result.events, result.last_seq], [true, 8, 8]);
    const anchor = result.anchor!;
    assert.deepEqual(
      [
        anchor.state,
        anchor.checkpoints,
        anchor.last_checkpoint?.seq,
        anchor.last_checkpoint?.kind,
        anchor.unanchored_events,
        anchor.restored,
      ],
      ['checked', 2, 8, 'serve', 0, null],
    );
    const people = ok(await clinicIn(dataDir, 'audit', 'verify')).stdout;
    assert.match(people, /It matches its 2 checkpoint\(s\); the last, by serve, at .+, anchors #8\./);
    assert.equal((await checkFindings(dataDir)).code, 0);
  });

  it('finds a patient’s events deleted and the hashes chained anew: AUDIT_CHAIN_BROKEN from the first event after the last checkpoint that still holds, verify and check alike', async () => {
    const copy = copyOf(dataDir);
    rewriteTrail(copy, { remove: (event) => event.patient_id === petra });
    const { code, error } = await refusal(copy);
    assert.equal(code, 1);
    assert.equal(error.code, 'AUDIT_CHAIN_BROKEN');
    assert.equal(error.seq, 4, 'the backup’s checkpoint at #3 still holds');
    assert.match(error.message, /the trail ends at event 5, but its checkpoint of .+ \(serve\) recorded event 8/);
    const check = await checkFindings(copy);
    assert.equal(check.code, 1);
    assert.match(check.findings.join('\n'), /AUDIT_CHAIN_BROKEN at event 4/);
  });

  it('finds events given to another actor and the hashes chained anew', async () => {
    const copy = copyOf(dataDir);
    // 1.2.0 kept who asked in each event; the compact trail keeps it once, in audit_actors.
    rewriteTrail(copy, {
      sql: (compact) => `UPDATE ${compact ? 'audit_actors' : 'audit_events'} SET actor_name = 'someone else', actor_id = 'someone else'`,
    });
    const { error } = await refusal(copy);
    assert.deepEqual([error.code, error.seq], ['AUDIT_CHAIN_BROKEN', 1]);
    assert.match(error.message, /event 3 no longer has the hash its checkpoint of .+ \(backup\) recorded/);
  });

  it('finds the newest events cut off, and an older copy of the database put in place', async () => {
    const cut = copyOf(dataDir);
    rewriteTrail(cut, { remove: (event) => event.seq >= 7 });
    const { error: cutError } = await refusal(cut);
    assert.deepEqual([cutError.code, cutError.seq], ['AUDIT_CHAIN_BROKEN', 4]);

    const older = copyOf(dataDir);
    copyFileSync(olderDatabase, join(older, 'clinic.db'));
    const { error } = await refusal(older);
    assert.deepEqual([error.code, error.seq], ['AUDIT_CHAIN_BROKEN', 4]);
    assert.match(error.message, /the trail ends at event 4, but its checkpoint .+ recorded event 8/);
  });

  it('says a restore of an older backup is one: its new anchor begins with the backup it came from', async () => {
    const restored = tempDir();
    ok(await clinicIn(restored, 'restore', programPath(backupFile)));
    const result = await verified(restored);
    assert.deepEqual([result.events, result.anchor?.state, result.anchor?.checkpoints], [4, 'checked', 1]);
    assert.equal(result.anchor?.restored?.backup_last_seq, 3);
    assert.equal(result.anchor?.last_checkpoint?.kind, 'restore');
    assert.match(ok(await clinicIn(restored, 'audit', 'verify')).stdout, /Restored at .+ from a backup of .+, whose trail ended at #3\./);
    assert.equal((await checkFindings(restored)).code, 0);
  });

  it('records the trail’s head in every backup’s manifest, and refuses to restore an archive whose trail ends elsewhere', async () => {
    const entries = await entriesOf(backupFile);
    const manifest = JSON.parse(entries[0]!.body!.toString('utf8')) as { audit_head: { seq: number; hash: string } };
    const hashOf3 = sqliteDriver().open(join(dataDir, 'clinic.db'));
    const row = hashOf3.prepare<[], { hash: string }>('SELECT hash FROM audit_events WHERE seq = 3').get()!;
    hashOf3.close();
    assert.deepEqual(manifest.audit_head, { seq: 3, hash: row.hash });

    const altered = join(tempDir(), 'altered.tar.gz');
    const claims = { ...manifest, audit_head: { seq: 2, hash: manifest.audit_head.hash } };
    await craftArchive(altered, [{ path: 'manifest.json', body: Buffer.from(JSON.stringify(claims)) }, ...entries.slice(1)]);
    const target = tempDir();
    const restore = await clinicIn(target, 'restore', programPath(altered), '--json');
    assert.equal(restore.code, 1, restore.stdout);
    const { detail } = JSON.parse(restore.stderr) as { detail: { code: string; message: string } };
    assert.equal(detail.code, 'BACKUP_DAMAGED');
    assert.match(detail.message, /the audit trail of its clinic\.db ends at event 3, not at the event manifest\.json records \(#2\)/);
    assert.deepEqual(readdirSync(target), []);
  });

  it('refuses a checkpoint that does not carry the key’s signature: AUDIT_CHECKPOINT_INVALID', async () => {
    const copy = copyOf(dataDir);
    const file = join(copy, 'audit-anchor', 'checkpoints');
    const [first, second] = readFileSync(file, 'utf8').trim().split('\n') as [string, string];
    writeFileSync(file, `${first}\n${second.replace(/"seq":8/, '"seq":5')}\n`);
    const { code, error } = await refusal(copy);
    assert.deepEqual([code, error.code], [1, 'AUDIT_CHECKPOINT_INVALID']);
    assert.match(error.message, /line 2 of its checkpoints file does not carry the signature of its key/);
    assert.match((await checkFindings(copy)).findings.join('\n'), /AUDIT_CHECKPOINT_INVALID/);
  });

  it('says plainly when there is no anchor, never that the trail is anchored', async () => {
    const copy = copyOf(dataDir);
    // As a desk user could: the anchor's folder renamed away.
    cpSync(join(copy, 'audit-anchor'), join(copy, '.elsewhere'), { recursive: true });
    rmSync(join(copy, 'audit-anchor'), { recursive: true });
    const json = await clinicIn(copy, 'audit', 'verify', '--json');
    assert.equal(json.code, 0);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout) as object), ['ok', 'events', 'last_seq', 'last_hash']);
    assert.match(json.stderr, /Not anchored: there is no checkpoint in .*audit-anchor/);
    assert.match(
      ok(await clinicIn(copy, 'audit', 'verify')).stdout,
      /Not anchored: there is no checkpoint in .*audit-anchor, so the trail's end is not protected/,
    );
  });

  it('tells a user who may not read the anchor that its checkpoints were not checked', { skip: nobodySkipReason }, async () => {
    const copy = copyOf(dataDir);
    // Another user's data directory, whose anchor is the server's (here root's) alone.
    for (const entry of [copy, ...readdirSync(copy, { recursive: true }).map((name) => join(copy, String(name)))]) {
      if (!String(entry).includes('audit-anchor')) chownSync(entry, 65534, 65534);
    }
    chmodSync(join(copy, 'audit-anchor'), 0o700);
    const result = await runAsNobody(['audit', 'verify', '--json', '--data', copy]);
    assert.equal(result.code, 0, result.stderr);
    const anchor = (JSON.parse(result.stdout) as Verified).anchor!;
    assert.equal(anchor.state, 'unreadable');
    assert.match(anchor.reason!, /may not read it \(EACCES\); run as the server's user/);
  });
});

/**
 * Issue 39 (M1, L1): what the audit trail costs on disk, and what its lists cost at millions of
 * events. In process, through the program's own functions (appendAuditEvents, the list of GET
 * /audit-events), over a database in BENCH_DIR (default: the system's temporary folder).
 *
 *   node --import tsx bench/audit-trail.ts size     bytes per event of search pages of 50 (the M1 attack), 100,000 events
 *   node --import tsx bench/audit-trail.ts day      bytes of an ordinary clinic day (below), 30 days, and per year
 *   node --import tsx bench/audit-trail.ts list     each filter of GET /audit-events at 2,000,000 events (BENCH_EVENTS)
 *   node --import tsx bench/audit-trail.ts migrate  migration 7 of a release-1.2.0 trail of 1,000,000 events (BENCH_EVENTS)
 *
 * Bytes are SQLite's own count (the dbstat table: every page of the trail's tables and indexes,
 * free space inside them included), divided by the events; the file's growth is printed beside.
 * The clock is node:test's mocked Date, moved a clinic day at a time, so the events spread over
 * days as a real trail does.
 */
import { randomUUID, createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mock } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listAuditEventRows, type AuditEventFilter } from '../src/db/audit-events.js';
import { openDatabase, type Db } from '../src/db/open-database.js';
import { sqliteDriver } from '../src/db/drivers/sqlite-driver.js';
import type { Actor, AuditRecord } from '../src/domain/audit/audit-event.js';
import { appendAuditEvents } from '../src/domain/audit/record-audit.js';
import { verifyAuditTrail } from '../src/domain/audit/verify-audit-trail.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { buildPatient } from '../test/helpers/builders.js';

const DAY_MS = 86_400_000;
const START = Date.parse('2026-01-05T07:00:00.000Z');
const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'clinic-audit-bench-'));
mock.timers.enable({ apis: ['Date'], now: START });

/** The trail's bytes on disk: every page of its tables and their indexes (dbstat), and the events. */
function trailBytes(db: Db): { bytes: number; events: number; objects: string } {
  const rows = db
    .prepare<[], { name: string; bytes: number }>(
      `SELECT name, sum(pgsize) AS bytes FROM dbstat
        WHERE name LIKE 'audit%' OR name LIKE 'sqlite_autoindex_audit%' GROUP BY name ORDER BY bytes DESC`,
    )
    .all();
  const events = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM audit_events').get()!.n;
  return {
    bytes: rows.reduce((total, row) => total + row.bytes, 0),
    events,
    objects: rows.map((row) => `${row.name} ${(row.bytes / events).toFixed(1)}`).join(', '),
  };
}

const apiKey = (id: string): Actor => ({ type: 'api_key', id, name: 'Praxis-Software', source: '127.0.0.1', requestId: randomUUID() });
const desk = (user: string): Actor => ({ type: 'cli', id: user, name: user, source: 'reception-pc', requestId: null });

/** Appends `records` as one answer of `actor` (one request id, one transaction per call). */
function record(db: Db, actor: Actor, records: readonly AuditRecord[]): void {
  db.transaction(() =>
    appendAuditEvents(db, actor.type === 'api_key' ? { ...actor, requestId: randomUUID() } : actor, records),
  ).immediate();
}

function newDatabase(name: string, patients: number): { db: Db; patientIds: string[]; dir: string } {
  const dir = join(work, name);
  const db = openDatabase(dir);
  const patientIds: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < patients; i += 1) {
      patientIds.push(createPatient(db, buildPatient({ last_name: `Huber${i}`, email: `p${i}@example.org` })).id);
    }
  })();
  return { db, patientIds, dir };
}

const search = (patientIds: readonly string[], q: string): AuditRecord[] =>
  patientIds.map((patientId) => ({ action: 'patient.search', patientId, subjectId: null, detail: { q } }));
const pick = (ids: readonly string[], n: number, from: number) => Array.from({ length: n }, (_, i) => ids[(from + i * 7) % ids.length]!);

/** M1: a read-only key's search pages of 50 patients, each an answer of its own. */
function sizeOfSearchPages(): void {
  const { db, patientIds, dir } = newDatabase('size', 1000);
  const key = randomUUID();
  const fileBefore = statSync(join(dir, 'clinic.db')).size;
  const pages = Number(process.env.BENCH_PAGES ?? 2000);
  db.transaction(() => {
    for (let page = 0; page < pages; page += 1) appendAuditEvents(db, apiKey(key), search(pick(patientIds, 50, page * 50), 'hu'));
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const { bytes, events, objects } = trailBytes(db);
  console.log(`search pages of 50 (q "hu"), ${pages} pages, ${events} events`);
  console.log(
    `  ${(bytes / events).toFixed(1)} bytes per event, ${((bytes / events) * 50).toFixed(0)} bytes per page (dbstat: ${objects})`,
  );
  console.log(`  clinic.db grew by ${((statSync(join(dir, 'clinic.db')).size - fileBefore) / events).toFixed(1)} bytes per event`);
  db.close();
}

/**
 * An ordinary day of a clinic with three desk PCs and one integration on the PC (the day of
 * docs/benchmarks.md): at the desk 100 searches showing 4 patients each, 150 patient overviews,
 * 60 bookings, 80 appointment changes (arrivals, reschedules), 3 day sheets of 40 patients, 40
 * invoices and 40 payments, a day report of 40, 5 invoice views, 10 new patients and 15 edits,
 * 20 uploads, 10 document lists and reads, one backup; the integration polls the day's
 * appointments every 5 minutes for 10 hours (120 × 40 patients), reads 50 patients and makes 50
 * searches showing 3 each.
 */
function ordinaryDay(db: Db, patientIds: readonly string[], day: number): void {
  const key = randomUUID();
  const users = ['maria', 'eva', 'tom'].map(desk);
  const user = (i: number) => users[i % users.length]!;
  const one = (action: AuditRecord['action'], patientId: string, subjectId: string | null, detail?: AuditRecord['detail']) =>
    [{ action, patientId, subjectId, ...(detail === undefined ? {} : { detail }) }] as AuditRecord[];
  const base = day * 97;
  for (let i = 0; i < 100; i += 1) record(db, user(i), search(pick(patientIds, 4, base + i), 'hub'));
  for (let i = 0; i < 150; i += 1) record(db, user(i), one('patient.read', patientIds[(base + i) % patientIds.length]!, null));
  const booked = pick(patientIds, 60, base);
  for (const [i, p] of booked.entries()) record(db, user(i), one('appointment.create', p, randomUUID()));
  for (let i = 0; i < 80; i += 1) record(db, user(i), one('appointment.update', booked[i % 60]!, randomUUID(), { changed: ['status'] }));
  for (let i = 0; i < 3; i += 1)
    record(
      db,
      user(i),
      pick(booked, 40, i).map((patientId) => ({ action: 'appointment.read', patientId, subjectId: null })),
    );
  for (let i = 0; i < 40; i += 1) {
    record(db, user(i), one('invoice.create', booked[i]!, randomUUID()));
    record(db, user(i), one('payment.create', booked[i]!, randomUUID()));
  }
  record(
    db,
    user(0),
    booked.slice(0, 40).map((patientId) => ({ action: 'invoice.read', patientId, subjectId: null })),
  );
  for (let i = 0; i < 5; i += 1) record(db, user(i), one('invoice.read', booked[i]!, randomUUID()));
  for (let i = 0; i < 10; i += 1) record(db, user(i), one('patient.create', patientIds[(base + 500 + i) % patientIds.length]!, null));
  for (let i = 0; i < 15; i += 1)
    record(db, user(i), one('patient.update', patientIds[(base + i) % patientIds.length]!, null, { changed: ['mobile', 'notes'] }));
  for (let i = 0; i < 20; i += 1) record(db, user(i), one('document.create', booked[i]!, randomUUID()));
  for (let i = 0; i < 5; i += 1) {
    record(db, user(i), one('document.list', booked[i]!, null));
    record(db, user(i), one('document.read', booked[i]!, randomUUID()));
  }
  record(db, user(0), [{ action: 'data.export', patientId: null, subjectId: null }]);
  const integration = apiKey(key);
  for (let poll = 0; poll < 120; poll += 1)
    record(
      db,
      integration,
      booked.slice(0, 40).map((patientId) => ({ action: 'appointment.read', patientId, subjectId: null })),
    );
  for (let i = 0; i < 50; i += 1) {
    record(db, integration, one('patient.read', patientIds[(base + 3 * i) % patientIds.length]!, null));
    record(db, integration, search(pick(patientIds, 3, base + i), 'müller'));
  }
}

function sizeOfOrdinaryDays(): void {
  const { db, patientIds } = newDatabase('day', 2000);
  const days = Number(process.env.BENCH_DAYS ?? 30);
  for (let day = 0; day < days; day += 1) {
    mock.timers.setTime(START + day * DAY_MS);
    db.transaction(() => ordinaryDay(db, patientIds, day))();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const { bytes, events, objects } = trailBytes(db);
  const perDay = bytes / days;
  console.log(`an ordinary day, ${days} days: ${events / days} events a day`);
  console.log(`  ${(bytes / events).toFixed(1)} bytes per event (dbstat: ${objects})`);
  console.log(
    `  ${(perDay / 1e6).toFixed(2)} MB a day, ${((perDay * 250) / 1e6).toFixed(0)} MB a year of 250 open days (${((perDay * 365) / 1e6).toFixed(0)} MB for 365)`,
  );
  db.close();
}

/** The median of `runs` timings of `work`, in ms. */
function timed(runs: number, work: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/**
 * 2,000,000 events over 200 clinic days (10,000 a day: search pages of 50, reads, rare updates),
 * then each filter of GET /audit-events: the first page of 100, and for the unfiltered list a page
 * deep in the trail.
 */
function listTimings(): void {
  const total = Number(process.env.BENCH_EVENTS ?? 2_000_000);
  const { db, patientIds } = newDatabase('list', 5000);
  const key = randomUUID();
  const perDay = 10_000;
  const days = Math.ceil(total / perDay);
  const started = performance.now();
  for (let day = 0; day < days; day += 1) {
    mock.timers.setTime(START + day * DAY_MS);
    db.transaction(() => {
      for (let written = 0; written < perDay;) {
        const n = written % 1000;
        if (n === 500) {
          appendAuditEvents(db, desk('maria'), [
            {
              action: 'patient.update',
              patientId: patientIds[day % 100]!,
              subjectId: patientIds[day % 100]!,
              detail: { changed: ['notes'] },
            },
          ]);
          written += 1;
        } else if (n % 100 === 1) {
          appendAuditEvents(db, apiKey(key), [
            { action: 'patient.read', patientId: patientIds[(day * 31 + written) % 5000]!, subjectId: null },
          ]);
          written += 1;
        } else {
          appendAuditEvents(db, apiKey(key), search(pick(patientIds, 50, day * 131 + written), 'hu'));
          written += 50;
        }
      }
    })();
  }
  console.log(`${total} events over ${days} days written in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const day = (d: number) => new Date(START + d * DAY_MS - 7 * 3_600_000).toISOString();
  const base: AuditEventFilter = { patientId: null, actions: null, from: null, to: null, after: 0, limit: 101 };
  const cases: [string, Partial<AuditEventFilter>][] = [
    ['no filter, first page', {}],
    ['no filter, after = 1,900,000', { after: Math.floor(total * 0.95) }],
    ['patient_id (a patient of some 20,000 events)', { patientId: patientIds[7] }],
    ['patient_id, after its 100th event', { patientId: patientIds[5] }],
    ['action=patient.update (1 in 1,000)', { actions: JSON.stringify(['patient.update']) }],
    ['action=patient.read,patient.update', { actions: JSON.stringify(['patient.read', 'patient.update']) }],
    ['from/to: one day in the middle', { from: day(100), to: day(101) }],
    ['from/to: that day, after its first 5,000', { from: day(100), to: day(101) }],
    ['from: the last 100 days (open window)', { from: day(100) }],
    ['to: the first 10 days', { to: day(10) }],
    ['patient_id + action=patient.update (2 such events)', { patientId: patientIds[5], actions: JSON.stringify(['patient.update']) }],
    ['from/to + action=patient.update', { from: day(50), to: day(150), actions: JSON.stringify(['patient.update']) }],
  ];
  console.log('| filter | first page (median of 5) | events on it |');
  console.log('|---|---:|---:|');
  for (const [title, filter] of cases) {
    const query = { ...base, ...filter };
    if (title.includes('after its first 5,000')) query.after = listAuditEventRows(db, { ...query, limit: 5000 }).at(-1)?.seq ?? 0;
    if (title.includes('after its 100th')) query.after = listAuditEventRows(db, { ...query, limit: 100 }).at(-1)?.seq ?? 0;
    let events = 0;
    const ms = timed(5, () => (events = listAuditEventRows(db, query).length));
    console.log(`| ${title} | ${ms.toFixed(2)} ms | ${events} |`);
  }
  db.close();
}

/**
 * Migration 7 on the release-1.2.0 fixture with `BENCH_EVENTS` events added to its trail the way
 * 1.2.0 wrote them (search pages of 50 by a key, each event hashed and chained): the time of the
 * first open (the migration), the process's peak memory, the file before and after, and a
 * verification of the whole converted trail.
 */
function migrationTiming(): void {
  const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
  const fixture = fileURLToPath(new URL('../test/fixtures/release-1.2.0', import.meta.url));
  const dir = join(work, 'migrate');
  mkdirSync(dir);
  copyFileSync(join(fixture, 'clinic.db'), join(dir, 'clinic.db'));
  const raw = sqliteDriver().open(join(dir, 'clinic.db'));
  const last = raw.prepare<[], { seq: number; hash: string }>('SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1').get()!;
  const patients = raw.prepare<[], { id: string; patient_number: string }>('SELECT id, patient_number FROM patients').all();
  const insert = raw.prepare(
    `INSERT INTO audit_events (seq, at, action, patient_id, patient_number, subject_type, subject_id, actor_type, actor_id,
       actor_name, source, request_id, detail, prev_hash, hash)
     VALUES (@seq, @at, @action, @patient_id, @patient_number, @subject_type, @subject_id, @actor_type, @actor_id,
       @actor_name, @source, @request_id, @detail, @prev_hash, @hash)`,
  );
  const canonical = (value: unknown): string =>
    Array.isArray(value)
      ? `[${value.map(canonical).join(',')}]`
      : value !== null && typeof value === 'object'
        ? `{${Object.keys(value)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
            .join(',')}}`
        : JSON.stringify(value);
  let prev = last.hash;
  let seq = last.seq;
  const key = randomUUID();
  raw.transaction(() => {
    while (seq - last.seq < total) {
      const requestId = randomUUID();
      const at = new Date(START + seq * 400).toISOString();
      for (let i = 0; i < 50 && seq - last.seq < total; i += 1) {
        const patient = patients[(seq + i) % patients.length]!;
        seq += 1;
        const event = {
          seq,
          at,
          action: 'patient.search',
          patient_id: patient.id,
          patient_number: patient.patient_number,
          subject_type: 'patient',
          subject_id: null,
          actor_type: 'api_key',
          actor_id: key,
          actor_name: 'Praxis-Software',
          source: '127.0.0.1',
          request_id: requestId,
          detail: { q: 'hu' },
          prev_hash: prev,
        };
        const hash = createHash('sha256').update(canonical(event)).digest('hex');
        insert.run({ ...event, detail: canonical(event.detail), hash });
        prev = hash;
      }
    }
  })();
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  const before = statSync(join(dir, 'clinic.db')).size;
  // The first open, which migrates, in a process of its own: its peak memory is the migration's.
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'open', dir], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  const db = openDatabase(dir);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const { bytes, events } = trailBytes(db);
  const verifyStarted = performance.now();
  const verified = verifyAuditTrail(db);
  console.log(
    `migrated ${events} events in ${child.stdout.trim()}; clinic.db ${(before / 1e6).toFixed(0)} MB before, ${(statSync(join(dir, 'clinic.db')).size / 1e6).toFixed(0)} MB after (the trail's pages now ${(bytes / 1e6).toFixed(0)} MB, the old table's freed for reuse)`,
  );
  console.log(`verified ${verified.events} events in ${((performance.now() - verifyStarted) / 1000).toFixed(1)} s`);
  db.close();
}

/** The child of `migrate`: opens (and so migrates) the database in the folder given, and says how long it took and its peak memory. */
function openAndReport(dir: string): void {
  const started = performance.now();
  openDatabase(dir).close();
  console.log(
    `${((performance.now() - started) / 1000).toFixed(1)} s, peak RSS of the process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
  );
}

try {
  const what = process.argv[2] ?? 'size';
  if (what === 'open') openAndReport(process.argv[3]!);
  else if (what === 'size') sizeOfSearchPages();
  else if (what === 'day') sizeOfOrdinaryDays();
  else if (what === 'list') listTimings();
  else if (what === 'migrate') migrationTiming();
  else throw new Error(`unknown part ${what}: size, day, list or migrate`);
} finally {
  mock.timers.reset();
  rmSync(work, { recursive: true, force: true });
}

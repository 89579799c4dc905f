import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sqliteDriver } from '../../../src/db/drivers/sqlite-driver.js';
import { addDoctor } from '../../../src/domain/catalog.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { buildPayment, createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { copyReleaseFixture, useDataDirs, useTestDatabase } from '../../helpers/fixtures.js';
import { addDocument } from '../../helpers/module-tables.js';
import { programPath, runClinic, type CliResult } from '../../helpers/run-cli.js';
import { assertChain, trailOf, type AuditEvent } from '../../helpers/audit-chain.js';
import { createPatientArgs } from '../../helpers/desk-args.js';

// The audit trail at the desk (clinic-api-1.2.md, "Audit trail"): what the commands record,
// `clinic audit list|verify|export`, check, backup and restore, an upgrade. Real CLI processes.

/** The desk's actor as the spec names it: the operating system's user on this host. */
const USER = userInfo().username;
const HOST = hostname();

/** Runs SQL on the database in `dataDir` through a connection of its own, as someone with the file would. */
function tamper(dataDir: string, sql: string): void {
  const raw = sqliteDriver().open(join(dataDir, 'clinic.db'));
  try {
    raw.exec(sql);
  } finally {
    raw.close();
  }
}

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return result;
};
const json = <T = any>(result: CliResult): T => JSON.parse(ok(result).stdout) as T;

/** Asserts an event is the desk's: its fields of who and where, and `expected`. */
function assertDeskEvent(event: AuditEvent | undefined, expected: Partial<AuditEvent>): void {
  assert.ok(event, 'an event was recorded');
  const picked = Object.fromEntries(
    ['actor_type', 'actor_id', 'actor_name', 'source', 'request_id', ...Object.keys(expected)].map((key) => [
      key,
      event[key as keyof AuditEvent],
    ]),
  );
  assert.deepEqual(picked, { actor_type: 'cli', actor_id: USER, actor_name: USER, source: HOST, request_id: null, ...expected });
}

const tempDir = useDataDirs();

describe('the audit trail at the desk', { concurrency: true }, () => {
  describe('what the desk records', { concurrency: 1 }, () => {
    const data = useTestDatabase();
    const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
    /** Runs the command (it must succeed) and returns it with the events it appended. */
    async function recorded(...args: string[]): Promise<{ result: CliResult; events: AuditEvent[] }> {
      const mark = trailOf(data.dataDir).at(-1)?.seq ?? 0;
      const result = ok(await clinic(...args));
      return { result, events: trailOf(data.dataDir, mark) };
    }
    /** Runs the command (it must succeed), which must record one event, the desk's, with `expected`; returns what it printed. */
    async function recordedOnce(args: string[], expected: Partial<AuditEvent>): Promise<CliResult> {
      const { result, events } = await recorded(...args);
      assert.equal(events.length, 1, events.map((e) => e.action).join(', '));
      assertDeskEvent(events[0], expected);
      return result;
    }
    /** Runs a --json command that creates a record of Bob's (`action`, as `<subject type>.create`), which must record that, and only that; returns the record. */
    async function createdForBob<T extends { id: string }>(action: string, ...args: string[]): Promise<T> {
      const { result, events } = await recorded(...args);
      const created = JSON.parse(result.stdout) as T;
      assert.equal(events.length, 1, events.map((e) => e.action).join(', '));
      assertDeskEvent(events[0], { action, patient_id: bob.id, subject_type: action.split('.')[0], subject_id: created.id, detail: null });
      return created;
    }

    let ada: { id: string; patient_number: string };
    let bob: { id: string; patient_number: string };
    let doctorId: string;
    const day = '2031-03-03';

    before(() => {
      setClinicTimeZone(data.db, 'UTC');
      ada = createTestPatient(data.db, { first_name: 'Ada', last_name: 'Deskaudit' });
      bob = createTestPatient(data.db, { first_name: 'Bob', last_name: 'Deskaudit' });
      doctorId = addDoctor(data.db, { name: 'Dr. Desk', color: '#123456' }).id;
      // Ada has two appointments, an invoice and a document; Bob one appointment.
      for (const [patient, hour] of [
        [ada, '09'],
        [ada, '10'],
        [bob, '11'],
      ] as const) {
        bookAppointment(
          data.db,
          { patient_id: patient.id, resource_id: doctorId, start_at: `${day}T${hour}:00:00Z`, end_at: `${day}T${hour}:30:00Z` },
          'cli',
        );
      }
      createTestInvoice(data.db, { patient_id: ada.id });
      addDocument(data.db, data.dataDir, ada.id, Buffer.from('%PDF-1.7 desk'));
      assert.deepEqual(trailOf(data.dataDir), [], 'what the test prepares records nothing');
    });

    it('create-patient: patient.create', async () => {
      const { result, events } = await recorded(...createPatientArgs('Cleo', 'Deskaudit', 'cleo@example.org', '+43 1'), '--json');
      const created = JSON.parse(result.stdout) as { id: string; patient_number: string };
      assert.equal(events.length, 1);
      assertDeskEvent(events[0], {
        action: 'patient.create',
        patient_id: created.id,
        patient_number: created.patient_number,
        subject_type: 'patient',
        subject_id: created.id,
        detail: null,
      });
      assert.match(events[0]!.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    });

    it('patient show: one patient.read, although it shows appointments, invoices and documents', async () => {
      const result = await recordedOnce(['patient', 'show', ada.patient_number], {
        action: 'patient.read',
        patient_id: ada.id,
        patient_number: ada.patient_number,
        subject_type: 'patient',
        subject_id: ada.id,
        detail: null,
      });
      assert.match(result.stdout, /Deskaudit/);
    });

    it('patient find: one patient.search per patient found, with the text', async () => {
      const { events } = await recorded('patient', 'find', 'deskaudit', '--json');
      assert.equal(events.length, 3);
      assert.equal(new Set(events.map((e) => e.patient_id)).size, 3, 'Ada, Bob and Cleo, once each');
      assert.ok(
        [ada.id, bob.id].every((id) => events.some((e) => e.patient_id === id)),
        'Ada and Bob among them',
      );
      for (const event of events)
        assertDeskEvent(event, { action: 'patient.search', subject_type: 'patient', subject_id: null, detail: { q: 'deskaudit' } });
    });

    it('patient edit: patient.update with the changed fields, sorted', async () => {
      await recordedOnce(['patient', 'edit', bob.patient_number, '--title', 'Dr.', '--gender', 'male', '--first-name', 'Bob'], {
        action: 'patient.update',
        patient_id: bob.id,
        subject_id: bob.id,
        detail: { changed: ['gender', 'title'] },
      });
    });

    it('book-appointment, appointment show and appointment list (one read per distinct patient)', async () => {
      const appointment = await createdForBob<{ id: string; appointment_number: string }>(
        'appointment.create',
        'book-appointment',
        '--patient-id',
        bob.patient_number,
        '--doctor',
        'Dr. Desk',
        '--start-at',
        `${day}T12:00`,
        '--end-at',
        `${day}T12:30`,
        '--json',
      );

      await recordedOnce(['appointment', 'show', appointment.appointment_number], {
        action: 'appointment.read',
        patient_id: bob.id,
        subject_type: 'appointment',
        subject_id: appointment.id,
      });

      const listed = await recorded('appointment', 'list', '--date', day, '--json');
      assert.equal((JSON.parse(listed.result.stdout) as unknown[]).length, 4, 'four appointments on the sheet');
      assert.equal(listed.events.length, 2, 'one per distinct patient');
      assert.deepEqual(listed.events.map((e) => e.patient_id).sort(), [ada.id, bob.id].sort());
      for (const event of listed.events)
        assertDeskEvent(event, { action: 'appointment.read', subject_type: 'appointment', subject_id: null });
    });

    it('upload-document, document list and document save', async () => {
      const file = join(tempDir(), 'scan.pdf');
      writeFileSync(file, '%PDF-1.7 uploaded at the desk');
      const document = await createdForBob(
        'document.create',
        'upload-document',
        '--patient-id',
        bob.patient_number,
        '--file',
        programPath(file),
        '--json',
      );
      await recordedOnce(['document', 'list', bob.patient_number], {
        action: 'document.list',
        patient_id: bob.id,
        subject_type: 'document',
        subject_id: null,
      });
      await recordedOnce(['document', 'save', document.id, programPath(join(tempDir(), 'copy.pdf'))], {
        action: 'document.read',
        patient_id: bob.id,
        subject_type: 'document',
        subject_id: document.id,
      });
    });

    it('invoice create, list (one read per distinct patient), show, record-payment, refund, void, report day', async () => {
      const invoice = await createdForBob<{ id: string; invoice_number: string }>(
        'invoice.create',
        'invoice',
        'create',
        '--patient-id',
        bob.patient_number,
        '--total',
        '50.00',
        '--json',
      );
      createTestInvoice(data.db, { patient_id: bob.id });

      const listed = await recorded('invoice', 'list', '--json');
      assert.equal((JSON.parse(listed.result.stdout) as unknown[]).length, 3, "Ada's one and Bob's two");
      assert.deepEqual(listed.events.map((e) => e.patient_id).sort(), [ada.id, bob.id].sort());
      for (const event of listed.events) assertDeskEvent(event, { action: 'invoice.read', subject_type: 'invoice', subject_id: null });

      await recordedOnce(['invoice', 'show', invoice.invoice_number], {
        action: 'invoice.read',
        patient_id: bob.id,
        subject_id: invoice.id,
      });

      // What record-payment, refund and void record, and a replay not: the tables of RECORD_PAYMENT,
      // REFUND_PAYMENT and VOID_INVOICE (test/domain/payments, test/domain/invoices). Here, that the desk
      // records them as its user, from this PC.
      const paid = await recorded('record-payment', '--invoice', invoice.invoice_number, '--amount', '20.00', '--method', 'cash');
      const refunded = await recorded('refund', '--invoice', invoice.invoice_number, '--reason', 'treatment cancelled');
      const voided = await recorded('invoice', 'void', invoice.invoice_number, '--reason', 'issued in error');
      assert.deepEqual(
        [...paid.events, ...refunded.events, ...voided.events].map((event) => event.action),
        ['payment.create', 'refund.create', 'invoice.void'],
      );
      for (const event of [...paid.events, ...refunded.events, ...voided.events]) assertDeskEvent(event, { patient_id: bob.id });

      // Today's report: Bob's payment and refund, and a payment of Ada's: one read per patient.
      const adas = createTestInvoice(data.db, { patient_id: ada.id });
      recordPayment(data.db, { path: { invoice_id: adas.id }, headers: {}, body: buildPayment({ amount: '5.00' }) });
      recordPayment(data.db, { path: { invoice_id: adas.id }, headers: {}, body: buildPayment({ amount: '6.00' }) });
      // Dora paid an invoice in another currency: the report lists it apart, and shows her too.
      const dora = createTestPatient(data.db, { first_name: 'Dora', last_name: 'Dollar' });
      const dollars = createTestInvoice(data.db, { patient_id: dora.id, currency: 'USD' });
      recordPayment(data.db, { path: { invoice_id: dollars.id }, headers: {}, body: buildPayment({ amount: '7.00' }) });
      const report = await recorded('report', 'day');
      assert.match(report.result.stdout, /USD/);
      assert.equal(report.events.length, 3, report.result.stdout);
      assert.deepEqual(report.events.map((e) => e.patient_id).sort(), [ada.id, bob.id, dora.id].sort());
      for (const event of report.events) assertDeskEvent(event, { action: 'invoice.read', subject_type: 'invoice', subject_id: null });
    });

    it('the whole trail the desk wrote verifies with the hashes recomputed here', () => {
      const events = trailOf(data.dataDir);
      assert.ok(events.length >= 20, `${events.length} events`);
      assertChain(events);
    });

    describe('clinic audit list', { concurrency: 1 }, () => {
      it("--json: today's events as GET /audit-events gives them, by default", async () => {
        const listed = json<AuditEvent[]>(await clinic('audit', 'list', '--json'));
        assert.deepEqual(listed, trailOf(data.dataDir), 'everything happened today');
        assert.deepEqual(json(await clinic('audit', 'list', '--date', '01.01.2020', '--json')), []);
        assert.deepEqual(json(await clinic('audit', 'list', '--from', '2020-01-01', '--to', 'today', '--json')), listed);
      });

      it("--patient: all that patient's events", async () => {
        const listed = json<AuditEvent[]>(await clinic('audit', 'list', '--patient', bob.patient_number.replace(/P-0+/, 'P-'), '--json'));
        assert.deepEqual(
          listed,
          trailOf(data.dataDir).filter((e) => e.patient_id === bob.id),
        );
        assert.ok(listed.length >= 10, `${listed.length} events of Bob's`);
      });

      it('refuses --date with --from (exit 2)', async () => {
        const result = await clinic('audit', 'list', '--date', 'today', '--from', 'today');
        assert.equal(result.code, 2);
        assert.match(result.stderr, /--date/, 'says why');
      });

      it('names --from or --to with the value typed when it is not a date (exit 1)', async () => {
        // `yesterday` is a date at the desk (issue 42): `someday` is not.
        const result = await clinic('audit', 'list', '--from', 'someday');
        assert.equal(result.code, 1);
        assert.match(result.stderr, /--from "someday": is not a date/);
        assert.doesNotMatch(result.stderr, /--date/, 'the option typed, not another');
      });

      it('prints for people: local time, patient number and name, who and from where, no ids', async () => {
        setClinicTimeZone(data.db, 'Pacific/Kiritimati');
        try {
          const events = trailOf(data.dataDir).filter((e) => e.patient_id === ada.id);
          const { stdout } = ok(await clinic('audit', 'list', '--patient', ada.patient_number));
          assert.doesNotMatch(stdout, new RegExp(ada.id), 'no patient id');
          for (const event of events) assert.ok(!event.subject_id || !stdout.includes(event.subject_id), 'no record id');
          assert.match(stdout, new RegExp(`${ada.patient_number} Ada Deskaudit`));
          const local = new Intl.DateTimeFormat('de-AT', {
            timeZone: 'Pacific/Kiritimati',
            day: '2-digit',
            month: '2-digit',
            year: 'numeric',
            hour: '2-digit',
            minute: '2-digit',
            hourCycle: 'h23',
          }).formatToParts(new Date(events[0]!.at));
          const part = (type: string) => local.find((p) => p.type === type)!.value;
          assert.ok(
            stdout.includes(`${part('day')}.${part('month')}.${part('year')} ${part('hour')}:${part('minute')}`),
            `the time of the first event in clinic time (UTC+14):\n${stdout}`,
          );
          assert.match(stdout, new RegExp(`patient\\.read.*${USER}.*${HOST}`));
        } finally {
          setClinicTimeZone(data.db, 'UTC');
        }
      });
    });

    describe('clinic audit export --fhir', { concurrency: 1 }, () => {
      it('writes one FHIR R4 AuditEvent per event, one per line', async () => {
        const file = join(tempDir(), 'trail.ndjson');
        const summary = json<{ events: number }>(await clinic('audit', 'export', '--fhir', programPath(file), '--json'));
        const events = trailOf(data.dataDir);
        assert.equal(summary.events, events.length);
        const text = readFileSync(file, 'utf8');
        assert.ok(text.endsWith('\n'), 'every line ends');
        const resources = text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, any>);
        assert.equal(resources.length, events.length);
        const codeOf = (action: string) =>
          action === 'patient.search' || action.startsWith('data.')
            ? 'E'
            : action.endsWith('.create')
              ? 'C'
              : action.endsWith('.update') || action === 'invoice.void'
                ? 'U'
                : 'R';
        resources.forEach((resource, index) => {
          const event = events[index]!;
          assert.equal(resource.resourceType, 'AuditEvent');
          assert.equal(resource.recorded, event.at);
          assert.equal(resource.action, codeOf(event.action), event.action);
          assert.equal(resource.agent.length >= 1, true);
          assert.equal(resource.agent[0].requestor, true);
          assert.ok(resource.source?.observer, 'source.observer');
          const references = (resource.entity as { what?: { reference?: string } }[]).map((e) => e.what?.reference);
          assert.ok(references.includes(`Patient/${event.patient_id}`), `${event.action}: the patient as an entity`);
        });
        assert.deepEqual(new Set(events.map((e) => e.action)).size >= 14, true, 'most actions are covered');

        const refused = await clinic('audit', 'export', '--fhir', programPath(file), '--json');
        assert.equal(refused.code, 1);
        assert.equal((JSON.parse(refused.stderr) as { detail: { code: string } }).detail.code, 'FILE_EXISTS');
        assert.equal(readFileSync(file, 'utf8'), text, 'left as it was');
        ok(await clinic('audit', 'export', '--fhir', programPath(file), '--from', 'tomorrow', '--force'));
        assert.equal(readFileSync(file, 'utf8'), '', 'replaced with --force: nothing from tomorrow on');
        const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
        ok(await clinic('audit', 'export', '--fhir', programPath(file), '--from', yesterday, '--to', 'today', '--force'));
        assert.equal(readFileSync(file, 'utf8'), text, 'yesterday to today: every event');
      });
    });
  });

  describe('clinic audit verify, clinic check, backup and restore', { concurrency: 1 }, () => {
    const data = useTestDatabase();
    const clinicIn = (dataDir: string, ...args: string[]) => runClinic([...args, '--data', dataDir]);
    let patientNumber: string;

    before(async () => {
      patientNumber = createTestPatient(data.db).patient_number;
      // Three events of the desk: a read, a search, a read.
      for (const args of [
        ['patient', 'show', patientNumber],
        ['patient', 'find', patientNumber],
        ['patient', 'show', patientNumber],
      ]) {
        ok(await clinicIn(data.dataDir, ...args));
      }
    });

    /** A copy of the suite's data directory (the database only), to tamper with. */
    function copyOfData(): string {
      const copy = tempDir();
      data.db.exec(`VACUUM INTO '${join(copy, 'clinic.db').replace(/'/g, "''")}'`);
      return copy;
    }

    it('verifies a whole trail: ok, events, last seq and hash, exit 0', async () => {
      const events = trailOf(data.dataDir);
      assert.equal(events.length, 3);
      assertChain(events);
      const verified = json(await clinicIn(data.dataDir, 'audit', 'verify', '--json'));
      assert.deepEqual(verified, { ok: true, events: 3, last_seq: 3, last_hash: events[2]!.hash });
    });

    it('finds a changed field: AUDIT_CHAIN_BROKEN naming its seq, exit 1; check fails naming it and the dropped trigger', async () => {
      const copy = copyOfData();
      // Its time, one millisecond later: the trail's own table, the view's refusal being no obstacle to SQL on it.
      tamper(copy, 'DROP TRIGGER audit_trail_append_only_on_update; UPDATE audit_trail SET at = at + 1 WHERE seq = 2;');
      const verified = await clinicIn(copy, 'audit', 'verify', '--json');
      assert.equal(verified.code, 1, verified.stdout);
      const { detail } = JSON.parse(verified.stderr) as { detail: { code: string; seq: number } };
      assert.equal(detail.code, 'AUDIT_CHAIN_BROKEN');
      assert.equal(detail.seq, 2);
      const check = await clinicIn(copy, 'check', '--json');
      assert.equal(check.code, 1);
      const trail = (JSON.parse(check.stdout) as { checks: { name: string; status: string; findings: string[] }[] }).checks.find(
        (c) => c.name === 'audit_trail',
      )!;
      assert.notEqual(trail.status, 'ok');
      assert.ok(
        trail.findings.some((f) => /AUDIT_CHAIN_BROKEN/.test(f) && /\b2\b/.test(f)),
        trail.findings.join('\n'),
      );
      assert.ok(
        trail.findings.some((f) => f.includes('audit_trail_append_only_on_update')),
        trail.findings.join('\n'),
      );
    });

    it('finds a deleted middle event, and check without --json fails too', async () => {
      const copy = copyOfData();
      tamper(copy, 'DROP TRIGGER audit_trail_append_only_on_delete; DELETE FROM audit_trail WHERE seq = 2;');
      const verified = await clinicIn(copy, 'audit', 'verify', '--json');
      assert.equal(verified.code, 1);
      const { detail } = JSON.parse(verified.stderr) as { detail: { code: string; seq: number } };
      assert.equal(detail.code, 'AUDIT_CHAIN_BROKEN');
      assert.equal(detail.seq, 3, 'the first event that no longer follows');
      const check = await clinicIn(copy, 'check');
      assert.equal(check.code, 1);
      assert.match(check.stdout + check.stderr, /AUDIT_CHAIN_BROKEN/);
      assert.match(check.stdout + check.stderr, /audit_trail_append_only_on_delete/);
    });

    it('backup and restore carry the trail: data.export in the source, every event and data.import in the restored one', async () => {
      const before = trailOf(data.dataDir);
      const file = join(tempDir(), 'backup.tar.gz');
      ok(await clinicIn(data.dataDir, 'backup', programPath(file)));
      const source = trailOf(data.dataDir);
      assert.equal(source.length, before.length + 1);
      assertDeskEvent(source.at(-1), {
        action: 'data.export',
        patient_id: null,
        patient_number: null,
        subject_type: 'data',
        subject_id: null,
        detail: null,
      });

      const restoredDir = join(tempDir(), 'restored');
      ok(await clinicIn(restoredDir, 'restore', programPath(file)));
      const restored = trailOf(restoredDir);
      assert.deepEqual(restored.slice(0, before.length), before, 'every event before the backup, as recorded');
      assert.equal(restored.length, before.length + 1, 'the export is not in its own archive');
      assertDeskEvent(restored.at(-1), {
        action: 'data.import',
        patient_id: null,
        patient_number: null,
        subject_type: 'data',
        subject_id: null,
        detail: null,
      });
      assertChain(restored);
      assert.equal(json(await clinicIn(restoredDir, 'audit', 'verify', '--json')).ok, true);
    });

    it('restore refuses a backup whose trail was tampered with (AUDIT_CHAIN_BROKEN), leaving the directory empty', async () => {
      const copy = copyOfData();
      // The search's text, as its context holds it.
      tamper(
        copy,
        `DROP TRIGGER audit_contexts_append_only_on_update;
         UPDATE audit_contexts SET detail = '{"q":"else"}' WHERE ref = (SELECT context_ref FROM audit_trail WHERE seq = 2);`,
      );
      const file = join(tempDir(), 'tampered.tar.gz');
      ok(await clinicIn(copy, 'backup', programPath(file)));
      const target = tempDir();
      const restore = await clinicIn(target, 'restore', programPath(file), '--json');
      assert.equal(restore.code, 1, restore.stdout);
      const { detail } = JSON.parse(restore.stderr) as { detail: { code: string; seq: number } };
      assert.equal(detail.code, 'AUDIT_CHAIN_BROKEN');
      assert.equal(detail.seq, 2);
      assert.deepEqual(readdirSync(target), []);
    });
  });

  describe('upgrading a data directory of release 1.1.0', { concurrency: 1 }, () => {
    const fixture = fileURLToPath(new URL('../../fixtures/release-1.1.0', import.meta.url));
    let dataDir: string;
    before(async () => {
      dataDir = copyReleaseFixture(fixture, tempDir());
      // A desk command refuses a database of an older schema (SCHEMA_UPGRADE_REQUIRED): upgraded first, as a clinic does.
      ok(await runClinic(['upgrade', '--data', dataDir]));
    });

    it('is upgraded, gains an empty trail, and records from seq 1', async () => {
      const empty = json(await runClinic(['audit', 'verify', '--json', '--data', dataDir]));
      assert.deepEqual(empty, { ok: true, events: 0, last_seq: 0, last_hash: null });
      ok(await runClinic(['patient', 'show', 'P-1', '--data', dataDir]));
      const events = trailOf(dataDir);
      assert.equal(events.length, 1);
      assertDeskEvent(events[0], { seq: 1, action: 'patient.read', patient_number: 'P-000001', prev_hash: '0'.repeat(64) });
      assertChain(events);
      // The upgraded trail is append-only too.
      assert.throws(() => tamper(dataDir, "UPDATE audit_events SET actor_name = 'x'"), /append-only/);
      assert.throws(() => tamper(dataDir, 'DELETE FROM audit_events'), /append-only/);
      assert.equal(trailOf(dataDir).length, 1);
    });
  });
});

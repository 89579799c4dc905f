import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient } from '../helpers/builders.js';
import { dataDirOn, mountTmpfs, type Tmpfs } from '../helpers/faults.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { lazyFsSkipReason } from '../helpers/lazyfs.js';
import { bootUntilPowerCut } from '../helpers/power-cuts.js';
import { multipartBody } from '../helpers/multipart.js';
import { seededRandom } from '../helpers/random.js';
import { programPlatform, runClinic, startServeProcess, STOP_SIGNAL, type ServeProcess } from '../helpers/run-cli.js';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/test-server.js';

// The audit trail under storage faults (issue 29, clinic-api-1.2.md "Audit trail"): a read whose
// events cannot be stored shows nothing, and neither a crash nor a power cut leaves an answered
// request, read or write, without its event, or a gap in the trail's seq.

/** Every event of the trail, in seq order: what the checks below compare. */
interface EventRow {
  seq: number;
  action: string;
  patient_id: string | null;
  subject_id: string | null;
  request_id: string | null;
}

const eventsOf = (db: Db) =>
  db.prepare<[], EventRow>('SELECT seq, action, patient_id, subject_id, request_id FROM audit_events ORDER BY seq').all();

/** The trail's seq is 1, 2, 3, … without a gap. */
function assertNoGap(events: readonly EventRow[]): void {
  const gap = events.findIndex((event, index) => event.seq !== index + 1);
  assert.equal(gap, -1, `seq has a gap at position ${gap + 1}: ${events[gap]?.seq}`);
}

/** `clinic audit verify --json` on `dataDir` exits 0 and counts `events`. */
async function assertVerifies(dataDir: string, events: number): Promise<void> {
  const verify = await runClinic(['audit', 'verify', '--json', '--data', dataDir]);
  assert.equal(verify.code, 0, `audit verify: ${verify.stdout}${verify.stderr}`);
  const verified = JSON.parse(verify.stdout) as { ok: boolean; events: number; last_seq: number };
  assert.deepEqual({ ok: verified.ok, events: verified.events, last_seq: verified.last_seq }, { ok: true, events, last_seq: events });
}

describe('an audited read on a full disk (the data directory on a tmpfs filled to its last block)', { timeout: 60_000 }, () => {
  let tmpfs: Tmpfs | undefined;
  let server: TestServer;
  const patient = buildPatient({ first_name: 'Imogen', last_name: 'Quarrington', email: 'imogen.q@example.org' });
  let patientId: string;
  let patientNumber: string;
  let invoiceId: string;
  let documentId: string;

  before(async (t) => {
    tmpfs = mountTmpfs(t as never, 16 * 1024);
    if (tmpfs === undefined) return;
    server = await startTestServer({}, dataDirOn(tmpfs));
    const created = await server.request('POST', '/patients', { body: patient });
    assert.equal(created.status, 201);
    ({ id: patientId, patient_number: patientNumber } = created.body);
    invoiceId = createInvoice(server.db, { patient_id: patientId, total: '80.00' }).id;
    const booked = await server.request('POST', '/appointments', {
      body: { patient_id: patientId, start_at: '2026-12-01T09:00Z', end_at: '2026-12-01T09:30Z' },
    });
    assert.equal(booked.status, 201);
    const form = multipartBody([
      { name: 'type', data: 'xrays' },
      { name: 'file', filename: 'pano.png', contentType: 'application/octet-stream', data: Buffer.alloc(4096, 7) },
    ]);
    const uploaded = await server.request('POST', `/patients/${patientId}/documents`, {
      rawBody: form.body,
      headers: { 'content-type': form.contentType },
    });
    assert.equal(uploaded.status, 201);
    documentId = uploaded.body.id;
  });
  after(async () => {
    if (tmpfs === undefined) return;
    // A failed set-up or stop must not leave the tmpfs mounted.
    try {
      await (server as TestServer | undefined)?.close();
    } finally {
      tmpfs.unmount();
    }
  });

  /** The audited reads of the test, each with the action its 200 records. */
  const reads = () => ({
    'GET /patients/{id}': { path: `/patients/${patientId}`, action: 'patient.read' },
    'GET /patients?q': { path: '/patients?q=Quarrington', action: 'patient.search' },
    'GET /appointments': { path: '/appointments?from=2026-12-01&to=2026-12-02', action: 'appointment.read' },
    'GET /invoices/{id}': { path: `/invoices/${invoiceId}`, action: 'invoice.read' },
    'a document download': { path: `/patients/${patientId}/documents/${documentId}`, action: 'document.read' },
  });

  /** Nothing of the patient in an answer: no name, email, id or number. */
  function assertShowsNothing(response: ApiResponse, what: string): void {
    assert.equal(response.status, 507, `${what}: ${response.status} ${response.text.slice(0, 300)}`);
    assert.equal(response.body?.detail?.code, 'STORAGE_FAILED', `${what}: ${response.text}`);
    assert.deepEqual(Object.keys(response.body), ['detail'], what);
    for (const shown of [patientId, patientNumber, patient.first_name, patient.last_name, patient.email, invoiceId, documentId]) {
      assert.ok(!response.text.includes(String(shown)), `${what} shows ${String(shown)}: ${response.text}`);
    }
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/, what);
  }

  it('answers 507 STORAGE_FAILED, shows nothing and records nothing; lookups are still answered', async (t) => {
    if (tmpfs === undefined) return t.skip('no tmpfs');
    const before = eventsOf(server.db);
    tmpfs.fill();
    for (const [what, { path }] of Object.entries(reads())) {
      const response = await server.request('GET', path);
      assertShowsNothing(response, what);
      const requestId = response.headers.get('x-request-id');
      assert.ok(requestId, what);
      assert.deepEqual(
        eventsOf(server.db).filter((event) => event.request_id === requestId),
        [],
        `${what} left an event`,
      );
    }
    assert.deepEqual(eventsOf(server.db), before);
    assert.equal((await server.request('GET', '/doctors')).status, 200);
    assert.equal((await server.request('GET', '/document-types')).status, 200);
  });

  it('answers the same reads once space is back, each with its event, and the chain verifies', async (t) => {
    if (tmpfs === undefined) return t.skip('no tmpfs');
    tmpfs.free();
    for (const [what, { path, action }] of Object.entries(reads())) {
      const response = await server.request('GET', path);
      assert.equal(response.status, 200, `${what}: ${response.status} ${response.text.slice(0, 300)}`);
      const requestId = response.headers.get('x-request-id');
      const recorded = eventsOf(server.db).filter((event) => event.request_id === requestId);
      assert.deepEqual(
        recorded.map((event) => [event.action, event.patient_id]),
        [[action, patientId]],
        `${what}'s events`,
      );
    }
    const events = eventsOf(server.db);
    assertNoGap(events);
    await assertVerifies(server.dataDir, events.length);
  });
});

// Kill -9 and power cuts under load: Jepsen-style clients record every request as ok (answered
// 2xx, with the X-Request-Id the client got), or not; afterwards every ok has its event.

const KILLS = 6;
const POWER_CUTS = 3;
const WRITERS = 2;
const PAYERS = 2;
const READERS = 3;

const random = seededRandom();
/** The Idempotency-Keys given out, across the rounds of a test. */
let idempotencyKeys = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request a client sent: answered 2xx (`ok`) or not, with the request id it got. */
interface Sent {
  kind: 'patient.create' | 'payment.create' | 'patient.read';
  ok: boolean;
  status?: number;
  requestId?: string;
  /** The id of the row a write made; the patient a read asked for. */
  id?: string;
  patientId?: string;
}

/** The server as the clients see it: where it listens, and a promise that holds while it restarts. */
interface Target {
  baseUrl: string;
  ready: Promise<void>;
  stopping: boolean;
  /**
   * The fault, armed: it strikes the moment the next 2xx answer of its kind arrives, before the
   * client looks at it, so an answer sent before its events were durable is caught in the act.
   */
  armed?: { kind: Sent['kind']; strike(): void };
}

/** The kinds of answer the faults strike after, in turn. */
const STRIKE_AFTER: readonly Sent['kind'][] = ['patient.read', 'patient.create', 'patient.read', 'payment.create'];

/** Arms the fault `strike` for the `round`th kind of STRIKE_AFTER; resolves once it has struck. */
function arm(target: Target, round: number, strike: () => void): Promise<void> {
  return new Promise((resolve) => {
    target.armed = {
      kind: STRIKE_AFTER[round % STRIKE_AFTER.length]!,
      strike() {
        target.armed = undefined;
        strike();
        resolve();
      },
    };
  });
}

async function send(
  target: Target,
  kind: Sent['kind'],
  key: string,
  path: string,
  init: RequestInit = {},
): Promise<Omit<Sent, 'kind'> & { body?: any }> {
  try {
    const response = await fetch(`${target.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
      signal: AbortSignal.timeout(15_000),
    });
    // Struck on the status line and headers: the answer is given, whether or not its body is read.
    if (response.ok && target.armed?.kind === kind) target.armed.strike();
    const text = await response.text();
    return {
      ok: response.ok,
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? undefined,
      body: response.ok && text !== '' ? JSON.parse(text) : undefined,
    };
  } catch {
    // No answer (refused, or the connection died): not acknowledged, so nothing to check.
    return { ok: false };
  }
}

/** Runs the clients until `target.stopping`; each appends what it sent to `log`. */
function startClients(target: Target, key: string, patientIds: string[], invoiceIds: readonly string[], log: Sent[]): Promise<void[]> {
  const writer = async (client: number) => {
    for (let i = 0; !target.stopping; i++) {
      await target.ready;
      const answer = await send(target, 'patient.create', key, '/patients', {
        method: 'POST',
        body: JSON.stringify(buildPatient({ first_name: `Load${client}`, last_name: `Number${i}` })),
      });
      log.push({ kind: 'patient.create', ...answer, id: answer.body?.id, patientId: answer.body?.id });
      if (answer.ok) patientIds.push(answer.body.id);
    }
  };
  const payer = async () => {
    while (!target.stopping) {
      await target.ready;
      const invoiceId = random.pick(invoiceIds);
      const answer = await send(target, 'payment.create', key, `/invoices/${invoiceId}/payments`, {
        method: 'POST',
        // New in every round too: a replay answers 200 but records nothing (it changed nothing).
        headers: { 'idempotency-key': `audit-${(idempotencyKeys += 1)}` },
        body: JSON.stringify({ amount: '0.01', method: 'cash' }),
      });
      log.push({ kind: 'payment.create', ...answer, id: answer.body?.payment_id, patientId: answer.body?.patient_id });
    }
  };
  const reader = async () => {
    while (!target.stopping) {
      await target.ready;
      const patientId = random.pick(patientIds);
      const answer = await send(target, 'patient.read', key, `/patients/${patientId}`);
      log.push({ kind: 'patient.read', ...answer, id: patientId, patientId });
    }
  };
  return Promise.all([
    ...Array.from({ length: WRITERS }, (_, client) => writer(client)),
    ...Array.from({ length: PAYERS }, () => payer()),
    ...Array.from({ length: READERS }, () => reader()),
  ]);
}

/** A key, patients and large invoices, committed before any fault. */
function prepare(dataDir: string): { key: string; patientIds: string[]; invoiceIds: string[] } {
  const db = openDatabase(dataDir);
  try {
    const key = createApiKey(db, { name: 'audit fault test' }).key;
    const patientIds = [1, 2, 3].map((n) => createPatient(db, buildPatient({ email: `p${n}@example.org` })).id);
    const invoiceIds = patientIds.map((patient_id) => createInvoice(db, { patient_id, total: '90000.00' }).id);
    return { key, patientIds, invoiceIds };
  } finally {
    db.close();
  }
}

/**
 * Every request answered 2xx has its one event, by the request id its client got, with its action
 * and patient; a write's row is stored; the trail has no gap, and `clinic audit verify` holds.
 */
async function assertEveryAcknowledgedRecorded(t: TestContext, dataDir: string, log: readonly Sent[]): Promise<void> {
  const ok = log.filter((sent) => sent.ok);
  const tally = (['patient.create', 'payment.create', 'patient.read'] as const)
    .map((kind) => `${kind} ${ok.filter((s) => s.kind === kind).length}/${log.filter((s) => s.kind === kind).length}`)
    .join(', ');
  const statuses = [...new Set(log.map((sent) => sent.status ?? 'none'))].join('/');
  t.diagnostic(`acknowledged/sent: ${tally} (answers ${statuses})`);
  for (const kind of ['patient.create', 'payment.create', 'patient.read'] as const)
    assert.ok(ok.filter((s) => s.kind === kind).length >= 5, `too few ${kind} answered to test anything (${tally})`);
  for (const sent of log) assert.ok((sent.status ?? 0) < 500, `${sent.kind} answered ${sent.status}`);

  const db = openDatabase(dataDir);
  let events: EventRow[];
  try {
    events = eventsOf(db);
    const byRequest = new Map<string | null, EventRow[]>();
    for (const event of events) byRequest.set(event.request_id, [...(byRequest.get(event.request_id) ?? []), event]);
    const patientExists = db.prepare<[string], { id: string }>('SELECT id FROM patients WHERE id = ?');
    const paymentExists = db.prepare<[string], { id: string }>('SELECT id FROM payments WHERE id = ?');
    for (const sent of ok) {
      const what = `acknowledged ${sent.kind} ${sent.requestId}`;
      const recorded = (byRequest.get(sent.requestId!) ?? []).map((event) => ({ action: event.action, patient_id: event.patient_id }));
      assert.deepEqual(recorded, [{ action: sent.kind, patient_id: sent.patientId }], `${what}: its event`);
      if (sent.kind === 'patient.create') assert.ok(patientExists.get(sent.id!), `${what}: the patient is stored`);
      if (sent.kind === 'payment.create') assert.ok(paymentExists.get(sent.id!), `${what}: the payment is stored`);
    }
    assertNoGap(events);
  } finally {
    db.close();
  }
  await assertVerifies(dataDir, events.length);
}

/** Why a round's program cannot be killed by the child this test holds (clinic.exe under Wine). */
const wineSkip = programPlatform === 'win32' ? 'the kill is tested with the Linux program' : false;

describe('audited reads and writes under load, the server killed with SIGKILL', { timeout: 90_000, skip: wineSkip }, () => {
  const newDir = useDataDirs();

  it('leaves no answered request without its event, no gap in seq, and a trail that verifies', async (t) => {
    t.diagnostic(`TEST_SEED=${random.seed}`);
    const dataDir = newDir();
    const { key, patientIds, invoiceIds } = prepare(dataDir);
    let server: ServeProcess = await startServeProcess(['--data', dataDir]);
    const target: Target = { baseUrl: server.baseUrl, ready: Promise.resolve(), stopping: false };
    const log: Sent[] = [];
    const clients = startClients(target, key, patientIds, invoiceIds, log);
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        await sleep(random.integer(300, 1200));
        const last = kill === KILLS - 1;
        let restarted!: () => void;
        const dying = server;
        await arm(target, kill, () => {
          target.ready = new Promise((resolve) => (restarted = resolve));
          target.stopping = last;
          dying.child.kill('SIGKILL');
        });
        await dying.exited;
        if (!last) {
          server = await startServeProcess(['--data', dataDir]);
          target.baseUrl = server.baseUrl;
        }
        restarted();
      }
      await clients;
      await assertEveryAcknowledgedRecorded(t, dataDir, log);
    } catch (error) {
      throw new Error(`failed with TEST_SEED=${random.seed}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      target.stopping = true;
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill(STOP_SIGNAL);
        await server.exited;
      }
    }
  });
});

describe('audited reads and writes under load across power cuts (LazyFS)', { timeout: 120_000, skip: wineSkip || lazyFsSkipReason }, () => {
  const newDir = useDataDirs();

  it('leaves no answered request without its event, no gap in seq, and a trail that verifies', async (t) => {
    t.diagnostic(`TEST_SEED=${random.seed}`);
    const backing = join(newDir(), 'disk');
    const dataDirOnDisk = join(backing, 'data');
    const { key, patientIds, invoiceIds } = prepare(dataDirOnDisk);
    const log: Sent[] = [];
    try {
      // Each round is a boot: a new mount over what the disk kept, load, then the power is cut.
      for (let round = 0; round < POWER_CUTS; round++) {
        await bootUntilPowerCut(
          backing,
          (server): Target => ({ baseUrl: server.baseUrl, ready: Promise.resolve(), stopping: false }),
          async ({ target, cutPower, awaitAfterCut }) => {
            awaitAfterCut(startClients(target, key, patientIds, invoiceIds, log));
            await sleep(random.integer(500, 1500));
            await arm(target, round, cutPower);
          },
        );
      }
      await assertEveryAcknowledgedRecorded(t, dataDirOnDisk, log);
    } catch (error) {
      throw new Error(`failed with TEST_SEED=${random.seed}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  });
});

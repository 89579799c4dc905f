/**
 * One round of each compared server, on a fresh copy of the large database: the clinic server
 * through every selected scenario and the large upload, then the floors through theirs. Rounds
 * alternate (clinic, floors, clinic, floors, ...), so that a drift of the machine during the run
 * touches both alike.
 */
import { join } from 'node:path';
import { openDatabase, type Db } from '../src/db/open-database.js';
import { DATABASE_FILE } from '../src/db/data-directory.js';
import { sqliteDriver } from '../src/db/drivers/sqlite-driver.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { addDoctor, addService } from '../src/domain/catalog.js';
import { createInvoice } from '../src/domain/invoices/create-invoice.js';
import { uploadLargeDocument, type BigUploadResult } from './big-upload.js';
import { copyDatabase, type InvoiceData } from './invoice-database.js';
import { runLoad, type LoadRequest, type LoadResult } from './load.js';
import { API, type ClinicFixture, type Floor, type FloorName, type FloorServer, type Scenario } from './scenarios.js';
import { freePort, startPinnedServer, type MemoryStatus, type ServerProcess } from './server-process.js';
import { recordPayment } from '../src/domain/payments/record-payment.js';

/** How the servers are started and how long each load runs. */
export interface RoundSettings {
  /** The clinic server's command line up to `serve`'s options. */
  clinicCommand: readonly string[];
  /** The floor servers' command lines up to their arguments, and their environment. */
  floorCommands: Record<FloorServer, readonly string[]>;
  floorEnv: Record<string, string>;
  /** Environment for the clinic server (e.g. NODE_OPTIONS for a CPU profile). */
  clinicEnv: Record<string, string>;
  warmupSeconds: number;
  seconds: number;
  /** Size of the large upload; 0 skips it. */
  bigUploadBytes: number;
  /** The cached large database and what it holds. */
  database: string;
  data: InvoiceData;
  /** Where this run keeps data directories and server logs. */
  workDir: string;
}

/** What one round of the clinic server measured. */
export interface ClinicRound {
  loads: Map<string, LoadResult>;
  bigUpload: BigUploadResult | undefined;
  /** The server's memory after everything else, just before it was stopped. */
  memoryAfter: MemoryStatus;
}

/** Doctors, services, a key and a hot invoice added to the copy of the large database. */
function prepareClinicData(dataDir: string, data: InvoiceData): ClinicFixture {
  const db = openDatabase(dataDir);
  try {
    // A limit of its own (the highest allowed, far above any round's rate): a key without one may
    // have its reads record 3,000 audit events a minute (issue 39, M1), which the audited reads'
    // scenarios pass in two seconds.
    const key = createApiKey(db, { name: 'bench', rate_limit_per_minute: 1_000_000 }).key;
    const doctors = Array.from({ length: 10 }, (_, i) => addDoctor(db, { name: `Dr. Bench ${i + 1}`, color: '#3366cc' }));
    const service = addService(db, { name: 'Check-up', duration_min: 30, price: 80, color: '#22aa66' });
    // The largest total there is, so that it takes every payment of a run.
    const hotPatient = data.patientIds[0]!;
    const hotInvoiceId = createInvoice(db, { patient_id: hotPatient, total: '99999999.99', currency: 'EUR' }).id;
    // And one paid in full, whose payment gives back a cent on every refund of a run.
    const refundInvoiceId = createInvoice(db, { patient_id: hotPatient, total: '99999999.99', currency: 'EUR' }).id;
    const refundablePaymentId = recordPayment(db, {
      path: { invoice_id: refundInvoiceId },
      headers: {},
      body: { amount: '99999999.99', method: 'card' },
    }).payment.payment_id;
    return {
      key,
      doctorId: doctors[0]!.id,
      serviceId: service.id,
      patientIds: data.patientIds,
      openInvoiceIds: data.openInvoiceIds,
      hotInvoiceId,
      refundablePaymentId,
    };
  } finally {
    db.close();
  }
}

/**
 * A warm-up whose figures are dropped, then the measured run, with the server's CPU time over it;
 * and, given a connection to the server's database, the audit and change events the measured run
 * appended.
 */
async function measure(
  server: ServerProcess,
  request: LoadRequest,
  connections: number,
  settings: RoundSettings,
  database?: Db,
): Promise<LoadResult> {
  if (settings.warmupSeconds > 0) await runLoad(server.origin, request, { connections, seconds: settings.warmupSeconds });
  const before = database === undefined ? undefined : lastEventSeqs(database);
  const cpuBefore = server.cpuSeconds();
  const result = await runLoad(server.origin, request, { connections, seconds: settings.seconds });
  const cpu = server.cpuSeconds() - cpuBefore;
  const after = database === undefined ? undefined : lastEventSeqs(database);
  return {
    ...result,
    serverCpu: { microsPerAnswer: (cpu * 1e6) / result.answers, busy: cpu / settings.seconds },
    ...(before === undefined || after === undefined
      ? {}
      : {
          auditEventsPerAnswer: (after.audit - before.audit) / result.successes,
          changeEventsPerAnswer: (after.change - before.change) / result.successes,
        }),
  };
}

/**
 * The last audit event's seq and the last change event's (both numbered 1, 2, 3, … without gaps):
 * 0 for none.
 */
function lastEventSeqs(db: Db): { audit: number; change: number } {
  const last = (table: string) => db.prepare<[], { seq: number | null }>(`SELECT max(seq) AS seq FROM ${table}`).get()!.seq ?? 0;
  return { audit: last('audit_events'), change: last('change_events') };
}

/** One load's line of the progress log. */
function describeLoad(title: string, result: LoadResult): string {
  const cpu = result.serverCpu
    ? `  server CPU ${result.serverCpu.microsPerAnswer.toFixed(0)} µs/answer, ${(result.serverCpu.busy * 100).toFixed(0)} % busy`
    : '';
  const events = (kind: string, perAnswer: number | undefined) =>
    perAnswer === undefined || perAnswer === 0 ? '' : `  ${kind} events ${perAnswer.toFixed(2)}/answer`;
  const audit = events('audit', result.auditEventsPerAnswer);
  const change = events('change', result.changeEventsPerAnswer);
  return `  ${title.padEnd(42)} ${result.requestsPerSec.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms${cpu}${audit}${change}${describeFailures(result)}`;
}

/** Starts `clinic serve` over `dataDir` (its log in `<name>.log`). */
async function startClinic(dataDir: string, name: string, settings: RoundSettings): Promise<ServerProcess> {
  const port = await freePort();
  const limitMb = Math.ceil(settings.bigUploadBytes / 1024 / 1024) + 16;
  return startPinnedServer(
    [...settings.clinicCommand, 'serve', '--data', dataDir, '--port', String(port), '--document-limit-mb', String(limitMb)],
    {
      port,
      readyPath: `${API}/document-types`,
      logFile: join(settings.workDir, `${name}.log`),
      env: settings.clinicEnv,
    },
  );
}

/**
 * The clinic server through `scenarios`, and its memory at the end; then the large upload, sent
 * to a second, freshly started server over the same data, so that its rise in memory is measured
 * from a server's first state (memory the scenarios grew and left free would absorb it) and its
 * 200 MiB on the disk cannot slow the scenarios.
 */
export async function runClinicRound(
  round: number,
  scenarios: readonly Scenario[],
  settings: RoundSettings,
  log: (line: string) => void,
  label = 'clinic',
): Promise<ClinicRound> {
  const dataDir = join(settings.workDir, `${label}-${round}`);
  copyDatabase(settings.database, dataDir);
  const fixture = prepareClinicData(dataDir, settings.data);
  const loads = new Map<string, LoadResult>();
  let memoryAfter: MemoryStatus;
  const server = await startClinic(dataDir, `${label}-${round}`, settings);
  // A second connection to the server's database, only between loads: the audit and change events
  // each appended (a read of the last seqs; WAL lets it read beside the server's writes).
  const audit = sqliteDriver().open(join(dataDir, DATABASE_FILE));
  try {
    for (const scenario of scenarios) {
      const result = await measure(server, scenario.request(fixture), scenario.connections, settings, audit);
      log(describeLoad(scenario.title, result));
      loads.set(scenario.name, result);
    }
    memoryAfter = server.memory();
    log(
      `  server memory after the round: RSS ${memoryAfter.rssMb.toFixed(0)} MiB (${memoryAfter.anonMb.toFixed(0)} anonymous, ${memoryAfter.fileMb.toFixed(0)} mapped files), peak ${memoryAfter.peakRssMb.toFixed(0)} MiB`,
    );
  } finally {
    audit.close();
    await server.stop();
  }
  let bigUpload: BigUploadResult | undefined;
  if (settings.bigUploadBytes > 0) {
    const fresh = await startClinic(dataDir, `${label}-${round}-upload`, settings);
    try {
      bigUpload = await uploadLargeDocument(fresh, fixture.key, fixture.patientIds[1]!, settings.bigUploadBytes);
      log(
        `  ${`POST documents, ${settings.bigUploadBytes / 1024 / 1024} MiB (fresh server)`.padEnd(42)} ${bigUpload.status} in ${bigUpload.seconds.toFixed(2)} s (${bigUpload.megabytesPerSec.toFixed(0)} MiB/s), RSS ${bigUpload.rssBeforeMb.toFixed(0)} → ${bigUpload.rssPeakDuringMb.toFixed(0)} MiB`,
      );
    } finally {
      await fresh.stop();
    }
  }
  return { loads, bigUpload, memoryAfter };
}

/**
 * The floor servers through each of `floors`: the same-SQL floor over a copy of the large
 * database prepared as the clinic's (so its payments go to the same invoices), then the minimal
 * floor over a small database of its own.
 */
export async function runFloorRound(
  round: number,
  floors: readonly Floor[],
  settings: RoundSettings,
  log: (line: string) => void,
): Promise<Map<FloorName, LoadResult>> {
  const results = new Map<FloorName, LoadResult>();
  for (const kind of ['same-sql', 'minimal'] as const) {
    const own = inTurns(
      floors.filter((floor) => floor.server === kind),
      round,
    );
    if (own.length === 0) continue;
    const name = kind === 'same-sql' ? `floor-${round}` : `minimal-floor-${round}`;
    const dataDir = join(settings.workDir, name);
    let fixture: ClinicFixture | undefined;
    if (kind === 'same-sql') {
      copyDatabase(settings.database, dataDir);
      fixture = prepareClinicData(dataDir, settings.data);
    }
    const port = await freePort();
    const server = await startPinnedServer([...settings.floorCommands[kind], dataDir, String(port)], {
      port,
      readyPath: '/',
      logFile: join(settings.workDir, `${name}.log`),
      env: settings.floorEnv,
    });
    // The same-SQL floor's database has the program's schema: the change events each floor
    // appended are read as the clinic's are (the minimal floor's tables are its own).
    const events = kind === 'same-sql' ? sqliteDriver().open(join(dataDir, DATABASE_FILE)) : undefined;
    try {
      for (const floor of own) {
        // The minimal floor's requests name its own invoices, not a fixture's.
        const result = await measure(server, floor.request(fixture as ClinicFixture), 10, settings, events);
        log(describeLoad(floor.title, result));
        results.set(floor.name, result);
      }
    } finally {
      events?.close();
      await server.stop();
    }
  }
  return results;
}

/**
 * The floors in the order a round runs them: as listed in odd rounds; in even rounds each floor
 * with a change event (issue 30) before the floor it extends, so that neither of the two always
 * runs second, on the rows and WAL the other left.
 */
function inTurns(floors: readonly Floor[], round: number): Floor[] {
  const ordered = [...floors];
  if (round % 2 === 1) return ordered;
  for (let i = 1; i < ordered.length; i++) {
    const floor = ordered[i]!;
    if (floor.base !== undefined && ordered[i - 1]!.name === floor.base) [ordered[i - 1], ordered[i]] = [floor, ordered[i - 1]!];
  }
  return ordered;
}

function describeFailures(result: LoadResult): string {
  const failures = Object.entries(result.failures).map(([status, count]) => `${count}× ${status}`);
  if (result.errors > 0) failures.push(`${result.errors} errors`);
  return failures.length === 0 ? '' : `  (NOT 2xx: ${failures.join(', ')})`;
}

/**
 * How long the desk commands of a receptionist's day take as whole processes, against a bare
 * start of the same runtime (issue 28: `dist/clinic patient find` within 2× Node 24's `node -e
 * 0`; issue 43: find, show, list, book, pay and the day's report, each within 2×). The two are started in
 * turn, A B A B …, so that a drift in the machine's speed reaches both; the ratio is taken pair by
 * pair and its median reported.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open-database.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { addDoctor, addService } from '../src/domain/catalog.js';
import { setClinicTimeZone } from '../src/domain/settings.js';
import { createInvoice } from '../src/domain/invoices/create-invoice.js';
import { findPatientIdBySeq } from '../src/db/references.js';
import { SERVER_CORE } from './server-process.js';

/** One desk command timed, and its yardstick, each a whole process, in alternating pairs. */
export interface DeskCommandLatency {
  command: string;
  deskMs: number[];
  bareMs: number[];
  ratios: number[];
  /** With a baseline build (--baseline): its run of the same command after each pair, and this build's time over it. */
  baselineMs: number[];
  againstBaseline: number[];
}

/** The desk commands of a receptionist's day, each against its yardstick. */
export interface DeskLatencyResult {
  commands: DeskCommandLatency[];
}

/** Wall milliseconds of one run of `argv` on the server's core, given `input`, its output thrown away; throws when it fails. */
export function timeRun(argv: readonly string[], env: NodeJS.ProcessEnv, input = ''): number {
  const started = process.hrtime.bigint();
  const run = spawnSync('taskset', ['-c', String(SERVER_CORE), ...argv], { input, stdio: ['pipe', 'ignore', 'pipe'], env });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`${argv.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return ms;
}

/**
 * The commands a receptionist runs in a day (issue 43): find, show, the day's appointments, book,
 * pay and the day's report, as typed at the desk. A command that writes is given its own slot or
 * amount on each run (`run` is the run's number), so that every run does the same work.
 */
const DESK_DAY: readonly { title: string; args: (run: number, day: DeskDay) => string[] }[] = [
  { title: 'patient find Muster', args: () => ['patient', 'find', 'Muster'] },
  { title: 'patient show P-1', args: () => ['patient', 'show', 'P-1'] },
  { title: 'appointment list', args: () => ['appointment', 'list'] },
  {
    title: 'book-appointment',
    // A day of its own for each run, far from the others: no run's slot is taken by another's.
    args: (run) => [
      'book-appointment',
      '--patient-id',
      `P-${(run % 200) + 1}`,
      '--doctor',
      'berger',
      '--service',
      'kontrolle',
      '--start-at',
      `${new Date(Date.UTC(2030, 0, 1 + run)).toISOString().slice(0, 10)}T10:00`,
    ],
  },
  {
    title: 'record-payment',
    args: (_run, day) => ['record-payment', '--invoice', day.invoiceNumber, '--amount', '1.00', '--method', 'cash'],
  },
  { title: 'report day', args: () => ['report', 'day'] },
];

/** What the day's commands name, beyond the 200 patients of seedDeskPatients. */
interface DeskDay {
  invoiceNumber: string;
}

/**
 * `samples` alternating runs of each command of DESK_DAY and of `runtime -e 0`, after two of each
 * unmeasured, over 200 patients, a doctor, a service and an invoice that takes every payment.
 * With `baseline` (another build's executable that reads the same schema), each pair is followed
 * by the baseline's run of the same command on the same data, so that both builds are compared in
 * the same minutes.
 */
export function measureDeskLatency(
  executable: string,
  runtime: string,
  workDir: string,
  samples: number,
  baseline?: string,
): DeskLatencyResult {
  const dataDir = seedDeskPatients(join(workDir, 'desk'));
  const day = seedDeskDay(dataDir);
  const bare = [runtime, '-e', '0'];
  const env = { ...process.env, XDG_CACHE_HOME: join(workDir, 'desk-cache') };
  const result: DeskLatencyResult = { commands: [] };
  for (const { title, args } of DESK_DAY) {
    const desk = (run: number, program = executable) => [program, ...args(run, day), '--data', dataDir];
    let run = 0;
    for (let i = 0; i < 2; i++) {
      timeRun(desk(run++), env);
      timeRun(bare, env);
      if (baseline !== undefined) timeRun(desk(run++, baseline), env);
    }
    const figures: DeskCommandLatency = {
      command: `dist/clinic ${title}`,
      deskMs: [],
      bareMs: [],
      ratios: [],
      baselineMs: [],
      againstBaseline: [],
    };
    for (let i = 0; i < samples; i++) {
      const deskMs = timeRun(desk(run++), env);
      const bareMs = timeRun(bare, env);
      figures.deskMs.push(deskMs);
      figures.bareMs.push(bareMs);
      figures.ratios.push(deskMs / bareMs);
      if (baseline !== undefined) {
        const baselineMs = timeRun(desk(run++, baseline), env);
        figures.baselineMs.push(baselineMs);
        figures.againstBaseline.push(deskMs / baselineMs);
      }
    }
    result.commands.push(figures);
  }
  return result;
}

/**
 * A doctor "berger", a service "kontrolle" and an invoice of P-1 large enough for every payment of
 * a run, in a clinic of Europe/Vienna: a zone with summer time, as a clinic's is, not the UTC of
 * a bench machine (UTC's wall clock needs no zone data at all).
 */
function seedDeskDay(dataDir: string): DeskDay {
  const db = openDatabase(dataDir);
  try {
    setClinicTimeZone(db, 'Europe/Vienna');
    addDoctor(db, { name: 'Dr. Anna Berger', color: '#3366cc' });
    addService(db, { name: 'Kontrolle', duration_min: 30, price: 80, color: '#22aa66' });
    const patientId = findPatientIdBySeq(db, 1)!;
    const invoice = createInvoice(db, { patient_id: patientId, total: '99999.00', currency: 'EUR' });
    return { invoiceNumber: invoice.invoice_number };
  } finally {
    db.close();
  }
}

/** A data directory of 200 patients, 20 of them named Muster (what the desk benchmarks find); returns it. */
export function seedDeskPatients(dataDir: string): string {
  const db = openDatabase(dataDir);
  for (let i = 0; i < 200; i++) {
    createPatient(db, {
      first_name: `Anna${i}`,
      last_name: i % 10 === 0 ? 'Muster' : `Huber${i}`,
      email: `p${i}@example.org`,
      mobile: `+43 664 ${i}`,
    });
  }
  db.close();
  return dataDir;
}

/**
 * The change feed's event row in process (issue 30), without the disk: `appendChangeEvents` as the
 * program calls it, over a fresh database of the program's schema with `synchronous = OFF` (no
 * fsync), on the calling thread. Two figures:
 *
 * - the event alone: EVENTS `patient.created` events (and as many `payment.created`, whose data
 *   is larger) appended inside transactions of EVENTS / BLOCKS, µs per event: its time, its JSON,
 *   its INSERT into change_events with the index by type (the records are made beforehand);
 * - the event in its commit: a patient's INSERT (as the same-SQL floor makes it) committed alone,
 *   in a BEGIN … COMMIT, and in a BEGIN … COMMIT with its event, µs per patient, so that the
 *   event's share of a commit is told from the transaction's own.
 *
 * The variants run in turns, in blocks (BLOCKS of EVENTS / BLOCKS each), the order rotated each
 * time; the figure is the median over blocks.
 *
 *   npm run bench -- --only change-event     # as part of the benchmark
 *   node --import tsx bench/change-event-cost.ts  # alone
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Db } from '../src/db/open-database.js';
import { appendChangeEvents } from '../src/domain/changes/record-changes.js';
import type { ChangeRecord } from '../src/domain/changes/change-event.js';
import { newId } from '../src/domain/clock.js';
import { insertFloorPatient } from './floor-patient.js';
import { PATIENT_BODY } from './scenarios.js';

export const EVENTS = 20_000;
const BLOCKS = 10;

export interface ChangeEventCost {
  /** µs per `patient.created` event, appended inside a transaction. */
  patientEventMicros: number;
  /** µs per `payment.created` event, appended inside a transaction. */
  paymentEventMicros: number;
  /** µs per patient committed alone (autocommit), in a BEGIN … COMMIT, and with its event. */
  insertAloneMicros: number;
  insertInTransactionMicros: number;
  insertWithEventMicros: number;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** µs per call of `work` over `count` calls. */
function timed(count: number, work: (index: number) => void): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) work(i);
  return ((performance.now() - start) * 1000) / count;
}

export function measureChangeEventCost(workDir: string, log: (line: string) => void): ChangeEventCost {
  const dataDir = mkdtempSync(join(workDir, 'change-event-'));
  const db: Db = openDatabase(dataDir);
  try {
    db.pragma('synchronous = OFF');
    const body = JSON.parse(PATIENT_BODY) as Record<string, unknown>;
    const patientEvent = (): ChangeRecord => ({
      type: 'patient.created',
      patientId: newId(),
      data: { patient_number: 'P-000123' },
    });
    // As record-payment.ts gives it, for 0.01 by card on an invoice with a balance left.
    const paymentEvent = (): ChangeRecord => ({
      type: 'payment.created',
      patientId: newId(),
      data: {
        payment_id: newId(),
        invoice_id: newId(),
        amount: 0.01,
        method: 'card',
        invoice_status: 'partially_paid',
        invoice_balance: 1234.56,
      },
    });
    const block = EVENTS / BLOCKS;
    const inOneTransaction = (record: () => ChangeRecord) => {
      const records = Array.from({ length: block }, () => [record()]);
      return db.transaction(() => timed(block, (i) => appendChangeEvents(db, records[i]!)))();
    };
    const insertInTransaction = db.transaction(() => insertFloorPatient(db, body));
    const insertWithEvent = db.transaction(() => {
      const row = insertFloorPatient(db, body);
      appendChangeEvents(db, [{ type: 'patient.created', patientId: row.id, data: { patient_number: row.patient_number } }]);
    });
    const variants: [string, () => number][] = [
      ['patient event', () => inOneTransaction(patientEvent)],
      ['payment event', () => inOneTransaction(paymentEvent)],
      ['insert alone', () => timed(block, () => insertFloorPatient(db, body))],
      ['insert in transaction', () => timed(block, () => insertInTransaction())],
      ['insert with event', () => timed(block, () => insertWithEvent())],
    ];
    const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
    // One block of each first, dropped: the statements prepared, the code warm.
    for (const [, run] of variants) run();
    for (let turn = 0; turn < BLOCKS; turn++) {
      for (let i = 0; i < variants.length; i++) {
        const [name, run] = variants[(turn + i) % variants.length]!;
        samples.get(name)!.push(run());
      }
    }
    const figure = (name: string) => median(samples.get(name)!);
    const cost: ChangeEventCost = {
      patientEventMicros: figure('patient event'),
      paymentEventMicros: figure('payment event'),
      insertAloneMicros: figure('insert alone'),
      insertInTransactionMicros: figure('insert in transaction'),
      insertWithEventMicros: figure('insert with event'),
    };
    log(formatChangeEventCost(cost));
    return cost;
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One line of results.md. */
export function formatChangeEventCost(cost: ChangeEventCost): string {
  const us = (value: number) => `${value.toFixed(1)} µs`;
  const eventInCommit = cost.insertWithEventMicros - cost.insertInTransactionMicros;
  return (
    `- the change event in process (\`appendChangeEvents\`, synchronous = OFF, no fsync; medians of ${BLOCKS} blocks, ${EVENTS.toLocaleString('en')} each in all): ` +
    `patient.created ${us(cost.patientEventMicros)} and payment.created ${us(cost.paymentEventMicros)} per event, ${(EVENTS / BLOCKS).toLocaleString('en')} to a transaction; ` +
    `a patient's INSERT committed alone ${us(cost.insertAloneMicros)}, in BEGIN … COMMIT ${us(cost.insertInTransactionMicros)}, ` +
    `with its event ${us(cost.insertWithEventMicros)} (${eventInCommit >= 0 ? '+' : '−'}${us(Math.abs(eventInCommit))} for the event)`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) measureChangeEventCost(tmpdir(), (line) => console.log(line));

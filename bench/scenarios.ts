/**
 * The load scenarios of `npm run bench`: what each sends, with how many connections, and the
 * targets of issue 6 that apply to it.
 */
import { randomBytes } from 'node:crypto';
import type { LoadRequest } from './load.js';

/** The data a clinic server under test was prepared with (bench/clinic-round.ts). */
export interface ClinicFixture {
  key: string;
  doctorId: string;
  serviceId: string;
  /** The patients of the large database, for per-request variety. */
  patientIds: readonly string[];
  /** Its open invoices: payments spread over them. */
  openInvoiceIds: readonly string[];
  /** One invoice large enough to take every payment of a run. */
  hotInvoiceId: string;
  /** One payment large enough to give back a cent on every request of a run (1.2.0 refunds). */
  refundablePaymentId: string;
}

/** Targets a scenario is held to; each is printed as met or not. */
export interface ScenarioTargets {
  /** Least share of its same-SQL floor's throughput (0.7 = 70 %; issue 6). */
  floorShare?: number;
  /** Least share of its minimal floor's throughput (issue 15). */
  minimalFloorShare?: number;
  /** Highest p99 latency in milliseconds. */
  p99Ms?: number;
  /**
   * Highest p99 as a multiple of its minimal floor's own p99 in the same round (issue 29: every
   * write and the audited read, ≤ 1.5).
   */
  minimalFloorP99Ratio?: number;
  /**
   * Issue 43's budget: the highest server CPU per answer as a multiple of its minimal floor's in
   * the same round (≤ 1.5 for the writes and the audited read).
   */
  minimalFloorCpuRatio?: number;
  /**
   * Issue 43's budget of a list: the highest server CPU per item shown, in µs, above a scenario
   * answering one item the same way (a search page of 50 above one audited read).
   */
  cpuPerItemAbove?: { scenario: string; items: number; micros: number };
}

/**
 * The floors: the least a bare node:http server does for a comparable request. `same-sql`
 * (bench/floor-server.ts) makes the program's own statements; `minimal`
 * (bench/minimal-floor-server.ts) the smallest durable write of the same kind.
 */
export type FloorName =
  | 'insert'
  | 'insert-event'
  | 'payment-spread'
  | 'payment-spread-event'
  | 'payment-hot'
  | 'upload'
  | 'minimal-insert'
  | 'minimal-payment-spread'
  | 'minimal-payment-hot';

export type FloorServer = 'same-sql' | 'minimal';

export interface Scenario {
  name: string;
  title: string;
  connections: number;
  targets: ScenarioTargets;
  /** The same-SQL floor whose throughput this scenario's is compared with. */
  floor: FloorName;
  /**
   * The minimal floor of a write scenario (issue 15), or of an audited read (issue 29): the least
   * a durable write of its kind costs, whose req/s and p99 it is read against.
   */
  minimalFloor?: FloorName;
  /**
   * The same-SQL floor plus the change event the program appends for this request, in the same
   * transaction (issue 30): read against `floor`, the two give the event row's cost in one run.
   */
  eventFloor?: FloorName;
  /**
   * A read that shows patient data, so appends audit events (one per patient shown) and runs as a
   * write in its turn's group commit (clinic-api-1.2.md, "Audit trail"): not in the table of
   * writes against their same-SQL floors, which have none of its kind.
   */
  auditedRead?: boolean;
  /** Whether the run measures it on `node dist/clinic.js` as well (the write scenarios, issue 15). */
  onJs?: boolean;
  request(fixture: ClinicFixture): LoadRequest;
}

export interface Floor {
  name: FloorName;
  title: string;
  server: FloorServer;
  /**
   * The floor this one is, plus one `change_events` row as the program writes it, in the same
   * transaction (issue 30). Each round runs the two on one server, in turns (bench/rounds.ts).
   */
  base?: FloorName;
  request(fixture: ClinicFixture): LoadRequest;
}

/** The invoices of the minimal floor's own database: `m-0` … `m-99999`, and one hot one. */
export const MINIMAL_FLOOR_INVOICES = 100_000;
export const minimalFloorInvoiceId = (index: number) => `m-${index}`;
export const MINIMAL_HOT_INVOICE = 'm-hot';

export const API = '/api/public/v1';
const P99_AT_10_CONNECTIONS = 20;
/** Issue 15: the write scenarios of the single executable at 10 connections. */
const WRITE_P99_AT_10_CONNECTIONS = 8;
/** Issue 29: the p99 of every write and of the audited read, as a multiple of the minimal floor's own. */
const P99_OVER_MINIMAL_FLOOR = 1.5;
/** Issue 43: the server's CPU per answer of every write and of the audited read, as a multiple of the minimal floor's. */
const CPU_OVER_MINIMAL_FLOOR = 1.5;
/** Issue 43: the server's CPU per patient shown on a search page, above one audited read, in µs. */
const SEARCH_CPU_PER_PATIENT_MICROS = 15;
/**
 * The search of the audited-search scenario: the first name every patient of the bench database
 * has (`invoice-database.ts`), so that any page is full: 50 patients, 50 audit events.
 */
export const SEARCH_OF_50 = { q: 'P', limit: 50 } as const;

/** The POST /patients body of both the clinic and the floor. */
export const PATIENT_BODY = JSON.stringify({
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.org',
  mobile: '+43 660 1234567',
  date_of_birth: '1985-12-10',
  address_city: 'Vienna',
  gdpr_consent: true,
});

const json = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** Takes the items of a list in turn, from a random place, so a run rarely repeats one. */
function rotation<T>(items: readonly T[]): () => T {
  let index = Math.floor(Math.random() * items.length);
  return () => items[index++ % items.length]!;
}

/** Idempotency-Keys unique across runs, as integrations send them. */
function keySeries(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let count = 0;
  return () => `bench-${prefix}-${count++}`;
}

const BOUNDARY = 'clinic-bench-boundary';
const FORM_HEAD = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="type"\r\n\r\nscans\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
/** A 1 MiB document as a multipart form, made once: the clinic and its floor get the same bytes. */
const ONE_MEGABYTE_FORM = Buffer.concat([Buffer.from(FORM_HEAD), randomBytes(1024 * 1024), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
const FORM_CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** One cent back: the smallest refund, so that a run never exhausts its payment. */
const REFUND_BODY = JSON.stringify({ amount: '0.01', reason: 'bench' });

/** One cent by card: the smallest payment, so that a run never exhausts an invoice's balance. */
const PAYMENT_BODY = JSON.stringify({ amount: '0.01', method: 'card', note: null });

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'patients',
    title: 'POST /patients',
    connections: 10,
    targets: {
      floorShare: 0.7,
      minimalFloorShare: 0.75,
      p99Ms: WRITE_P99_AT_10_CONNECTIONS,
      minimalFloorP99Ratio: P99_OVER_MINIMAL_FLOOR,
      minimalFloorCpuRatio: CPU_OVER_MINIMAL_FLOOR,
    },
    floor: 'insert',
    minimalFloor: 'minimal-insert',
    eventFloor: 'insert-event',
    onJs: true,
    request: ({ key }) => ({ method: 'POST', path: `${API}/patients`, headers: json(key), body: PATIENT_BODY }),
  },
  {
    name: 'doctors',
    title: 'GET /doctors',
    connections: 10,
    targets: { p99Ms: P99_AT_10_CONNECTIONS },
    floor: 'insert',
    request: ({ key }) => ({ method: 'GET', path: `${API}/doctors`, headers: { authorization: `Bearer ${key}` } }),
  },
  {
    name: 'appointments',
    title: 'POST /appointments',
    connections: 10,
    targets: { p99Ms: P99_AT_10_CONNECTIONS, minimalFloorP99Ratio: P99_OVER_MINIMAL_FLOOR, minimalFloorCpuRatio: CPU_OVER_MINIMAL_FLOOR },
    floor: 'insert',
    // No minimal floor of its own (issue 15 set it no share): read against the one-row INSERT.
    minimalFloor: 'minimal-insert',
    onJs: true,
    request: ({ key, patientIds, doctorId, serviceId }) => {
      const nextPatient = rotation(patientIds);
      return {
        method: 'POST',
        path: `${API}/appointments`,
        headers: json(key),
        setup: (request) => ({
          ...request,
          body: JSON.stringify({
            patient_id: nextPatient(),
            resource_id: doctorId,
            service_id: serviceId,
            start_at: '2026-12-01T09:00',
            end_at: '2026-12-01T09:30',
            title: 'Check-up',
          }),
        }),
      };
    },
  },
  {
    name: 'payments-spread',
    title: 'POST payments, many invoices',
    connections: 10,
    targets: {
      floorShare: 0.7,
      minimalFloorShare: 0.8,
      p99Ms: WRITE_P99_AT_10_CONNECTIONS,
      minimalFloorP99Ratio: P99_OVER_MINIMAL_FLOOR,
      minimalFloorCpuRatio: CPU_OVER_MINIMAL_FLOOR,
    },
    floor: 'payment-spread',
    minimalFloor: 'minimal-payment-spread',
    eventFloor: 'payment-spread-event',
    onJs: true,
    request: ({ key, openInvoiceIds }) => paymentRequest(key, rotation(openInvoiceIds)),
  },
  {
    name: 'payments-hot',
    title: 'POST payments, one hot invoice',
    connections: 10,
    targets: {
      floorShare: 0.7,
      minimalFloorShare: 0.8,
      p99Ms: WRITE_P99_AT_10_CONNECTIONS,
      minimalFloorP99Ratio: P99_OVER_MINIMAL_FLOOR,
      minimalFloorCpuRatio: CPU_OVER_MINIMAL_FLOOR,
    },
    floor: 'payment-hot',
    minimalFloor: 'minimal-payment-hot',
    onJs: true,
    request: ({ key, hotInvoiceId }) => paymentRequest(key, () => hotInvoiceId),
  },
  {
    name: 'patients-patch',
    title: 'PATCH /patients/{id}',
    connections: 10,
    targets: {
      minimalFloorShare: 0.75,
      p99Ms: WRITE_P99_AT_10_CONNECTIONS,
      minimalFloorP99Ratio: P99_OVER_MINIMAL_FLOOR,
      minimalFloorCpuRatio: CPU_OVER_MINIMAL_FLOOR,
    },
    floor: 'insert',
    minimalFloor: 'minimal-insert',
    request: ({ key, patientIds }) => {
      const nextPatient = rotation(patientIds);
      let count = 0;
      // A new mobile each time: every request changes the patient (its version and search terms).
      return {
        method: 'PATCH',
        path: `${API}/patients/x`,
        headers: json(key),
        setup: (request) => ({
          ...request,
          path: `${API}/patients/${nextPatient()}`,
          body: JSON.stringify({ mobile: `+43 660 ${String((count += 1)).padStart(7, '0')}` }),
        }),
      };
    },
  },
  {
    name: 'refunds',
    title: 'POST refunds, one payment',
    connections: 10,
    targets: { minimalFloorShare: 0.8, p99Ms: WRITE_P99_AT_10_CONNECTIONS, minimalFloorP99Ratio: P99_OVER_MINIMAL_FLOOR },
    floor: 'payment-hot',
    minimalFloor: 'minimal-payment-hot',
    request: ({ key, refundablePaymentId }) => {
      const nextKey = keySeries();
      return {
        method: 'POST',
        path: `${API}/payments/${refundablePaymentId}/refunds`,
        headers: json(key),
        body: REFUND_BODY,
        setup: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': nextKey() } }),
      };
    },
  },
  {
    name: 'patient-read',
    title: 'GET /patients/{id}, audited',
    connections: 10,
    // Issue 29: one patient shown, one audit event appended and fsynced before the answer; held
    // to the one-row durable write of the minimal floor.
    targets: { minimalFloorShare: 1.0, minimalFloorP99Ratio: P99_OVER_MINIMAL_FLOOR, minimalFloorCpuRatio: CPU_OVER_MINIMAL_FLOOR },
    floor: 'insert',
    minimalFloor: 'minimal-insert',
    auditedRead: true,
    request: ({ key, patientIds }) => {
      // A different patient each time, over the 100,000 of the database: no one hot row.
      const nextPatient = rotation(patientIds);
      return {
        method: 'GET',
        path: `${API}/patients/x`,
        headers: { authorization: `Bearer ${key}` },
        setup: (request) => ({ ...request, path: `${API}/patients/${nextPatient()}` }),
      };
    },
  },
  {
    name: 'patient-search-50',
    title: `GET /patients?q=${SEARCH_OF_50.q}&limit=${SEARCH_OF_50.limit}, audited`,
    connections: 10,
    // Fifty patients shown, fifty audit events: figures reported, no target (issue 29 sets none).
    targets: { cpuPerItemAbove: { scenario: 'patient-read', items: SEARCH_OF_50.limit, micros: SEARCH_CPU_PER_PATIENT_MICROS } },
    floor: 'insert',
    minimalFloor: 'minimal-insert',
    auditedRead: true,
    request: ({ key }) => ({
      method: 'GET',
      path: `${API}/patients?q=${SEARCH_OF_50.q}&limit=${SEARCH_OF_50.limit}`,
      headers: { authorization: `Bearer ${key}` },
    }),
  },
  {
    name: 'invoices',
    title: 'GET /invoices?patient_id (1M invoices)',
    connections: 10,
    targets: { p99Ms: P99_AT_10_CONNECTIONS },
    floor: 'insert',
    request: ({ key, patientIds }) => invoiceQuery(key, patientIds),
  },
  {
    name: 'invoices-1',
    title: 'GET /invoices?patient_id, 1 client',
    connections: 1,
    // Issue 6: the one-patient query in at most 5 ms at 1,000,000 invoices, taken as the p99 of
    // one client's requests (with 10 clients, the time is mostly waiting behind the others).
    targets: { p99Ms: 5 },
    floor: 'insert',
    request: ({ key, patientIds }) => invoiceQuery(key, patientIds),
  },
  {
    name: 'upload-1mb',
    title: 'POST documents, 1 MiB',
    connections: 10,
    targets: { p99Ms: P99_AT_10_CONNECTIONS },
    floor: 'upload',
    request: ({ key, patientIds }) => {
      const nextPatient = rotation(patientIds);
      return {
        method: 'POST',
        path: `${API}/patients/x/documents`,
        headers: { authorization: `Bearer ${key}`, 'content-type': FORM_CONTENT_TYPE },
        body: ONE_MEGABYTE_FORM,
        setup: (request) => ({ ...request, path: `${API}/patients/${nextPatient()}/documents` }),
      };
    },
  },
];

const JSON_ONLY = { 'content-type': 'application/json' };

/**
 * The query that asks the same-SQL floor (bench/floor-server.ts) to append the request's change
 * event too, in the same transaction (issue 30).
 */
export const WITH_CHANGE_EVENT = 'change-event';

export const FLOORS: readonly Floor[] = [
  {
    name: 'insert',
    title: 'floor: node:http + the same INSERT (POST /patients)',
    server: 'same-sql',
    request: () => ({ method: 'POST', path: `${API}/patients`, headers: JSON_ONLY, body: PATIENT_BODY }),
  },
  {
    name: 'insert-event',
    title: 'floor: node:http + the same INSERT + its change event (POST /patients)',
    server: 'same-sql',
    base: 'insert',
    request: () => ({ method: 'POST', path: `${API}/patients?${WITH_CHANGE_EVENT}`, headers: JSON_ONLY, body: PATIENT_BODY }),
  },
  {
    name: 'payment-spread',
    title: 'floor: node:http + the same payment SQL, many invoices',
    server: 'same-sql',
    request: ({ openInvoiceIds }) => paymentRequest(undefined, rotation(openInvoiceIds)),
  },
  {
    name: 'payment-spread-event',
    title: 'floor: node:http + the same payment SQL + its change event, many invoices',
    server: 'same-sql',
    base: 'payment-spread',
    request: ({ openInvoiceIds }) => paymentRequest(undefined, rotation(openInvoiceIds), WITH_CHANGE_EVENT),
  },
  {
    name: 'payment-hot',
    title: 'floor: node:http + the same payment SQL, one hot invoice',
    server: 'same-sql',
    request: ({ hotInvoiceId }) => paymentRequest(undefined, () => hotInvoiceId),
  },
  {
    name: 'upload',
    title: 'floor: node:http writing the 1 MiB body to a file + fsync',
    server: 'same-sql',
    request: () => ({ method: 'POST', path: '/upload', headers: { 'content-type': FORM_CONTENT_TYPE }, body: ONE_MEGABYTE_FORM }),
  },
  {
    name: 'minimal-insert',
    title: 'minimal floor: node:http + an 8-column INSERT',
    server: 'minimal',
    request: () => ({ method: 'POST', path: `${API}/patients`, headers: JSON_ONLY, body: PATIENT_BODY }),
  },
  {
    name: 'minimal-payment-spread',
    title: 'minimal floor: a payment on three small tables, many invoices',
    server: 'minimal',
    request: () => {
      const indexes = rotation(Array.from({ length: MINIMAL_FLOOR_INVOICES }, (_, i) => i));
      return paymentRequest(undefined, () => minimalFloorInvoiceId(indexes()));
    },
  },
  {
    name: 'minimal-payment-hot',
    title: 'minimal floor: a payment on three small tables, one hot invoice',
    server: 'minimal',
    request: () => paymentRequest(undefined, () => MINIMAL_HOT_INVOICE),
  },
];

/**
 * A payment of PAYMENT_BODY to the invoice `nextInvoice` names, each with a new Idempotency-Key;
 * with the API key `key` (the floors take none), and `query` after the path (a floor's).
 */
function paymentRequest(key: string | undefined, nextInvoice: () => string, query?: string): LoadRequest {
  const nextKey = keySeries();
  const search = query === undefined ? '' : `?${query}`;
  return {
    method: 'POST',
    path: `${API}/invoices/x/payments${search}`,
    headers: key === undefined ? JSON_ONLY : json(key),
    body: PAYMENT_BODY,
    setup: (request) => ({
      ...request,
      path: `${API}/invoices/${nextInvoice()}/payments${search}`,
      headers: { ...request.headers, 'idempotency-key': nextKey() },
    }),
  };
}

function invoiceQuery(key: string, patientIds: readonly string[]): LoadRequest {
  const nextPatient = rotation(patientIds);
  return {
    method: 'GET',
    path: `${API}/invoices`,
    headers: { authorization: `Bearer ${key}` },
    setup: (request) => ({ ...request, path: `${API}/invoices?patient_id=${nextPatient()}` }),
  };
}

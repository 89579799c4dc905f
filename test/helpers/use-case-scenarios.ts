import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import { AppError, ValidationError } from '../../src/errors.js';
import { isPlainObject } from '../../src/fields/plain-object.js';
import { performUseCase, type AnyUseCase, type Caller, type RawRequest } from '../../src/domain/use-case.js';
import { createTestInvoice } from './builders.js';
import { useTestDatabase } from './fixtures.js';

/**
 * A use case's rules as one table (issue 41): each scenario sets up a clinic, sends one request
 * through the use-case runner (performUseCase, as the desk runs it; the server runs the same
 * use case through its commit groups), and says what it answers or refuses and what it leaves in
 * the audit trail and the change feed. A refusal must change nothing at all. The HTTP and desk
 * files then test only the wiring: statuses, headers, exit codes, printouts, and the actor and
 * source each front end gives the records (docs/development.md, "Where a test goes").
 */

/** An audit event as a scenario expects it: the fields named are compared, the others not. */
export interface ExpectedAuditEvent {
  action: string;
  patient_id?: string | null;
  subject_type?: string;
  subject_id?: string | null;
  detail?: Record<string, unknown> | null;
}

/** A change event as a scenario expects it: its type, its patient, and its data whole or the fields named. */
export interface ExpectedChangeEvent {
  type: string;
  patient_id?: string | null;
  /** The whole data, no field more. */
  data?: Record<string, unknown>;
  /** Some fields of the data. */
  dataIncludes?: Record<string, unknown>;
}

/** What one request leads to, given what `given` made (ids, numbers). */
export type Outcome =
  | {
      /** Fields of the result, compared where named (nested objects too). */
      result: Record<string, unknown>;
      /** The events appended, in order; a function of the result where they name what it made. */
      audit: readonly ExpectedAuditEvent[] | ((result: any) => readonly ExpectedAuditEvent[]);
      changes: readonly ExpectedChangeEvent[] | ((result: any) => readonly ExpectedChangeEvent[]);
      /** Asserts what else it left (an outbox row, a file), on the database as it left it. */
      then?: (db: Db) => void;
    }
  /** A coded refusal (AppError): its code and HTTP status, and what its message must say. */
  | { refused: string; status: number; message?: RegExp }
  /** A request off its schema (ValidationError, 422): the `loc` of each issue, joined with dots, and their types if named. */
  | {
      invalid: readonly string[];
      types?: readonly string[];
      /** The named fields of each issue's `ctx` (what a refusal offers instead: `did_you_mean`). */
      ctx?: readonly Record<string, unknown>[];
    };

export interface Scenario<G> {
  title: string;
  /** What the clinic holds first, made through the use cases; returns what the request and the outcome name. */
  given: (db: Db) => G;
  request: (given: G) => RawRequest;
  /** Who asks; the desk's operating-system user by default. */
  caller?: Caller;
  expect: (given: G) => Outcome;
}

/** The desk's operating-system user, as the command line names it. */
export const DESK_USER: Caller = {
  source: 'cli',
  actor: { type: 'cli', id: 'maria', name: 'maria', source: 'reception-pc', requestId: null },
};

/** An invoice a table's scenario starts from: its patient, id and number. */
export interface GivenInvoice {
  patientId: string;
  invoiceId: string;
  invoiceNumber: string;
}

/** A `given`: an invoice of `total` EUR for a new patient, and what `before` does next to it. */
export const givenInvoice =
  (total: string, before: (db: Db, given: GivenInvoice) => void = () => {}) =>
  (db: Db): GivenInvoice => {
    const invoice = createTestInvoice(db, { total });
    const given = { patientId: invoice.patient_id, invoiceId: invoice.id, invoiceNumber: invoice.invoice_number };
    before(db, given);
    return given;
  };

/** Runs each scenario of `useCase` as a test of its own, on a database of its own. */
export function describeScenarios<G>(name: string, useCase: AnyUseCase, scenarios: readonly Scenario<G>[]): void {
  describe(name, () => {
    const data = useTestDatabase({ each: true });
    for (const scenario of scenarios) {
      it(scenario.title, () => runScenario(data.db, useCase, scenario));
    }
  });
}

function runScenario<G>(db: Db, useCase: AnyUseCase, scenario: Scenario<G>): void {
  const given = scenario.given(db);
  const expected = scenario.expect(given);
  const before = snapshot(db);
  const lastAudit = lastSeq(db, 'audit_trail');
  const lastChange = lastSeq(db, 'change_events');
  const run = () => performUseCase(useCase as never, db, scenario.request(given), scenario.caller ?? DESK_USER) as unknown;
  if ('refused' in expected || 'invalid' in expected) {
    assert.throws(run, (error: unknown) => {
      if ('invalid' in expected) {
        assert.ok(error instanceof ValidationError, `refused as invalid, not ${String(error)}`);
        assert.deepEqual(
          error.issues.map((issue) => issue.loc.join('.')),
          expected.invalid,
        );
        if (expected.types !== undefined)
          assert.deepEqual(
            error.issues.map((issue) => issue.type),
            expected.types,
          );
        expected.ctx?.forEach((ctx, i) => assertFields(error.issues[i]?.ctx ?? {}, ctx, `issue ${i + 1}: ctx`));
      } else {
        assert.ok(error instanceof AppError, `refused with an AppError, not ${String(error)}`);
        assert.deepEqual([error.code, error.status], [expected.refused, expected.status], error.message);
        if (expected.message !== undefined) assert.match(error.message, expected.message);
      }
      return true;
    });
    assert.deepEqual(snapshot(db), before, 'a refusal changes nothing');
    return;
  }
  const result = run();
  assertFields(result, expected.result, 'result');
  const expectedAudit = typeof expected.audit === 'function' ? expected.audit(result) : expected.audit;
  const expectedChanges = typeof expected.changes === 'function' ? expected.changes(result) : expected.changes;
  const audit = db
    .prepare('SELECT action, patient_id, subject_type, subject_id, detail FROM audit_events WHERE seq > ? ORDER BY seq')
    .all(lastAudit) as { detail: string | null }[];
  assert.equal(audit.length, expectedAudit.length, `audit events: ${JSON.stringify(audit)}`);
  expectedAudit.forEach((event, i) =>
    assertFields({ ...audit[i], detail: audit[i]!.detail === null ? null : JSON.parse(audit[i]!.detail) }, event, `audit event ${i + 1}`),
  );
  const changes = db.prepare('SELECT type, patient_id, data FROM change_events WHERE seq > ? ORDER BY seq').all(lastChange) as {
    data: string;
  }[];
  assert.equal(changes.length, expectedChanges.length, `change events: ${JSON.stringify(changes)}`);
  expectedChanges.forEach(({ data: wholeData, dataIncludes, ...event }, i) => {
    const data = JSON.parse(changes[i]!.data) as Record<string, unknown>;
    assertFields(changes[i], event, `change event ${i + 1}`);
    if (wholeData !== undefined) assert.deepEqual(data, wholeData, `change event ${i + 1}: data`);
    if (dataIncludes !== undefined) assertFields(data, dataIncludes, `change event ${i + 1}: data`);
  });
  expected.then?.(db);
}

/**
 * Asserts each field named in `expected` of `actual`: nested plain objects field by field (in a
 * list too, item by item, the list as long), a RegExp as a string it matches (a time stamped by
 * the run), anything else deep-equal.
 */
export function assertFields(actual: unknown, expected: object, where: string): void {
  assert.ok(actual !== null && typeof actual === 'object', `${where}: an object, not ${JSON.stringify(actual)}`);
  for (const [field, value] of Object.entries(expected))
    assertValue((actual as Record<string, unknown>)[field], value, `${where}.${field}`);
}

/** One expected value, as assertFields reads it. */
function assertValue(got: unknown, value: unknown, where: string): void {
  if (value instanceof RegExp) {
    assert.ok(typeof got === 'string', `${where}: a string, not ${JSON.stringify(got)}`);
    assert.match(got, value, where);
  } else if (Array.isArray(value) && value.some(isPlainObject)) {
    assert.ok(Array.isArray(got) && got.length === value.length, `${where}: ${value.length} items, not ${JSON.stringify(got)}`);
    value.forEach((item: unknown, i) => assertValue(got[i], item, `${where}[${i}]`));
  } else if (isPlainObject(value)) assertFields(got, value, where);
  else assert.deepEqual(got, value, where);
}

function lastSeq(db: Db, table: string): number {
  return (db.prepare(`SELECT coalesce(max(seq), 0) AS seq FROM ${table}`).get() as { seq: number }).seq;
}

/** Every row of every table, to show that a refusal left the database as it was. */
function snapshot(db: Db): Record<string, unknown[]> {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
    name: string;
  }[];
  return Object.fromEntries(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]));
}

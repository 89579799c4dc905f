import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DAY_REPORT } from '../../src/domain/desk/day-report.js';
import { errors, ValidationError } from '../../src/errors.js';
import { SECRET_ECHO } from '../../src/domain/validation/validate.js';
import { CREATE_INVOICE, createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { LIST_INVOICES } from '../../src/domain/invoices/list-invoices.js';
import { READ_INVOICE } from '../../src/domain/invoices/read-invoice.js';
import { CREATE_CREDIT_NOTE } from '../../src/domain/invoices/credit-invoice.js';
import { VOID_INVOICE } from '../../src/domain/invoices/void-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { RECORD_PAYMENT, recordPayment } from '../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../src/domain/payments/refund-payment.js';
import { setModuleEnabled } from '../../src/domain/settings.js';
import { buildUseCaseValidators, defineUseCase, type AnyUseCase } from '../../src/domain/use-case.js';
import type { FieldSpec } from '../../src/fields/field-spec.js';
import { openDatabase } from '../../src/db/open-database.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { OPERATIONS } from '../../src/server/api/api-operations.js';
import { buildInvoice, buildPatient } from '../helpers/builders.js';
import { runClinic } from '../helpers/run-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** One use case of an optional module, as each front end is asked for it. */
interface ModuleCase {
  useCase: AnyUseCase;
  /** The API request, where the API offers the use case. */
  api?: { method: 'GET' | 'POST'; path: string; body?: unknown; headers?: Record<string, string> };
  /** The desk command. */
  cli: string[];
  /** Whether it changes something: then it is not asked again once the module is back on. */
  writes?: boolean;
}

/** Whether an export of a module is a use case (defineUseCase's object). */
const isUseCase = (value: unknown): value is AnyUseCase =>
  typeof value === 'object' && value !== null && 'valuesOf' in value && 'run' in value && 'refusals' in value;

/** Every use case src/domain declares, by name (`invoices/void-invoice.ts VOID_INVOICE`): each of its modules imported. */
async function declaredUseCases(): Promise<Map<AnyUseCase, string>> {
  const root = new URL('../../src/domain/', import.meta.url);
  const found = new Map<AnyUseCase, string>();
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .sort()) {
    // By its .js name, as a module imports another: tsx and the compiled tests alike find it.
    const exports = (await import(new URL(file.replace(/\.ts$/, '.js'), root).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) if (isUseCase(value) && !found.has(value)) found.set(value, `${file} ${name}`);
  }
  return found;
}

/**
 * A module's switch is declared once, on the use case (src/domain/use-case.ts): the API's
 * operation and the desk's command mount the same object, so switched off they refuse alike,
 * with the module the declaration names, and change nothing.
 */
describe('a use case of a module that is off', () => {
  let server: TestServer;
  let cases: ModuleCase[];
  /** What a refused request must leave as it was: the ledger's rows, and which invoices are void. */
  const ledger = () =>
    server.db
      .prepare(
        `SELECT (SELECT count(*) FROM payments) AS payments, (SELECT count(*) FROM refunds) AS refunds,
                (SELECT count(*) FROM invoices) AS invoices, (SELECT count(*) FROM invoices WHERE status = 'void') AS void,
                (SELECT count(*) FROM credit_notes) AS credit_notes`,
      )
      .get();

  before(async () => {
    server = await startTestServer();
    const patient = createPatient(server.db, buildPatient());
    const invoice = createInvoice(server.db, buildInvoice(patient.id, { total: 50 }));
    const paid = createInvoice(server.db, buildInvoice(patient.id, { total: 30 }));
    const { payment } = recordPayment(server.db, { path: { invoice_id: paid.id }, headers: {}, body: { amount: '30.00', method: 'card' } });
    cases = [
      {
        useCase: RECORD_PAYMENT,
        api: {
          method: 'POST',
          path: `/invoices/${invoice.id}/payments`,
          body: { amount: 10, method: 'cash' },
          headers: { 'idempotency-key': 'switched-off' },
        },
        cli: ['record-payment', '--invoice', invoice.invoice_number, '--amount', '10', '--method', 'cash', '--idempotency-key', 'off'],
        writes: true,
      },
      { useCase: LIST_INVOICES, api: { method: 'GET', path: '/invoices' }, cli: ['invoice', 'list'] },
      { useCase: READ_INVOICE, api: { method: 'GET', path: `/invoices/${invoice.id}` }, cli: ['invoice', 'show', invoice.invoice_number] },
      {
        useCase: CREATE_INVOICE,
        api: { method: 'POST', path: '/invoices', body: { patient_id: patient.id, total: '20.00' } },
        cli: ['invoice', 'create', '--patient-id', patient.patient_number, '--total', '20'],
        writes: true,
      },
      {
        useCase: VOID_INVOICE,
        api: { method: 'POST', path: `/invoices/${invoice.id}/void`, body: { reason: 'issued in error' } },
        cli: ['invoice', 'void', invoice.invoice_number, '--reason', 'issued in error'],
        writes: true,
      },
      {
        useCase: CREATE_CREDIT_NOTE,
        api: { method: 'POST', path: `/invoices/${invoice.id}/credit-notes`, body: { amount: '5.00', reason: 'billed twice' } },
        cli: ['invoice', 'credit', invoice.invoice_number, '--amount', '5', '--reason', 'billed twice'],
        writes: true,
      },
      {
        useCase: REFUND_PAYMENT,
        api: { method: 'POST', path: `/payments/${payment.payment_id}/refunds`, body: { amount: '5.00', reason: 'charged twice' } },
        cli: ['refund', '--invoice', paid.invoice_number, '--amount', '5', '--reason', 'charged twice'],
        writes: true,
      },
      { useCase: DAY_REPORT, cli: ['report', 'day'] },
    ];
  });
  after(() => server.close());

  it('is refused by the API and the desk alike, 403 MODULE_DISABLED naming the declared module, and nothing changes', async () => {
    for (const { useCase, api, cli, writes } of cases) {
      const module = useCase.module!;
      const refusal = errors.moduleDisabled(module);
      setModuleEnabled(server.db, module, false);
      try {
        const counts = ledger();
        if (api !== undefined) {
          const answer = await server.request(api.method, api.path, {
            ...(api.body === undefined ? {} : { body: api.body }),
            ...(api.headers === undefined ? {} : { headers: api.headers }),
          });
          assert.equal(answer.status, 403, api.path);
          assert.deepEqual(answer.body, { detail: { code: refusal.code, message: refusal.message } }, api.path);
        }
        const desk = await runClinic([...cli, '--json', '--data', server.dataDir]);
        assert.equal(desk.code, 1, `${cli.join(' ')}: ${desk.stdout}`);
        assert.deepEqual(JSON.parse(desk.stderr), { detail: { code: refusal.code, message: refusal.message } }, cli.join(' '));
        assert.deepEqual(ledger(), counts, `${cli.join(' ')} changed nothing`);
      } finally {
        setModuleEnabled(server.db, module, true);
      }
      // Switched on again, the same requests are answered (the refusal was the switch's).
      if (api !== undefined && api.method === 'GET') assert.equal((await server.request(api.method, api.path)).status, 200);
      if (writes !== true) assert.equal((await runClinic([...cli, '--json', '--data', server.dataDir])).code, 0, cli.join(' '));
    }
  });

  it('covers every use case of a module that src/domain declares, on each front end that mounts it', async () => {
    const declared = await declaredUseCases();
    assert.ok(declared.size >= 40, `${declared.size} use cases found`);
    const ofModules = [...declared].filter(([useCase]) => useCase.module !== undefined);
    for (const [useCase, name] of ofModules) {
      const tested = cases.find((candidate) => candidate.useCase === useCase);
      assert.ok(tested, `${name} (module ${useCase.module}) has a case above`);
      const mounted = OPERATIONS.some((operation) => operation.useCase === useCase);
      assert.equal(tested.api !== undefined, mounted, `${name}: asked over HTTP exactly when the API mounts it`);
    }
    assert.equal(cases.length, ofModules.length, 'a case for each, and only those');
  });

  it('is an API operation whose module is its use case’s, never one a route declares itself', () => {
    for (const operation of OPERATIONS) {
      assert.equal(operation.module, operation.useCase?.module, operation.operationId);
    }
    assert.deepEqual(
      OPERATIONS.filter((operation) => operation.module !== undefined).map((operation) => operation.operationId),
      ['listInvoices', 'createInvoice', 'getInvoice', 'voidInvoice', 'createCreditNote', 'recordPayment', 'refundPayment'],
    );
  });
});

/**
 * A use case's validators are built once: when it first runs (a desk command, which loads a
 * command group of dozens and runs one), or for all at the server's start (buildUseCaseValidators),
 * never per request.
 */
describe("a use case's validators", () => {
  const dataDir = useDataDirs();

  /** A use case of one secret field whose spec counts how often it is read while validators are built. */
  function countedUseCase() {
    const reads = { secret: 0 };
    const pin = {
      name: 'pin',
      kind: 'string',
      required: true,
      maxLength: 8,
      get secret() {
        reads.secret++;
        return true;
      },
    } as const satisfies FieldSpec;
    const useCase = defineUseCase({
      summary: 'Checks a PIN',
      roles: ['admin'],
      input: { body: [pin] },
      refusals: [],
      access: 'read',
      run: () => 'checked',
    });
    return { useCase, reads };
  }

  it('are built when it first runs, and once: a second run and a refusal build nothing again', () => {
    const db = openDatabase(dataDir());
    try {
      const { useCase, reads } = countedUseCase();
      assert.equal(reads.secret, 0, 'declared, not built');
      assert.deepEqual(useCase.valuesOf(db, { body: { pin: '1234' } }), { body: { pin: '1234' } });
      const built = reads.secret;
      assert.ok(built > 0);
      // A refusal builds nothing again, and still keeps the secret out of what it echoes.
      assert.throws(
        () => useCase.valuesOf(db, { body: { pin: 'far too long a PIN' } }),
        (error: unknown) => error instanceof ValidationError && error.issues[0]?.input === SECRET_ECHO,
      );
      assert.equal(reads.secret, built);
    } finally {
      db.close();
    }
  });

  it("are built for every use case declared by buildUseCaseValidators, as the server's start calls it", () => {
    const { useCase, reads } = countedUseCase();
    buildUseCaseValidators();
    const built = reads.secret;
    assert.ok(built > 0);
    const db = openDatabase(dataDir());
    try {
      useCase.valuesOf(db, { body: { pin: '1234' } });
      assert.equal(reads.secret, built);
    } finally {
      db.close();
    }
  });
});

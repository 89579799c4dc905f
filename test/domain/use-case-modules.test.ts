import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_REPORT } from '../../src/domain/desk/day-report.js';
import { errors } from '../../src/domain/errors.js';
import { CREATE_INVOICE, createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { LIST_INVOICES } from '../../src/domain/invoices/list-invoices.js';
import { READ_INVOICE } from '../../src/domain/invoices/read-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { RECORD_PAYMENT } from '../../src/domain/payments/record-payment.js';
import { setModuleEnabled } from '../../src/domain/settings.js';
import type { AnyUseCase } from '../../src/domain/use-case.js';
import { OPERATIONS } from '../../src/server/api-operations.js';
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
}

/**
 * A module's switch is declared once, on the use case (src/domain/use-case.ts): the API's
 * operation and the desk's command mount the same object, so switched off they refuse alike,
 * with the module the declaration names, and change nothing.
 */
describe('a use case of a module that is off', () => {
  let server: TestServer;
  let cases: ModuleCase[];
  const payments = () => (server.db.prepare('SELECT count(*) AS n FROM payments').get() as { n: number }).n;
  const invoices = () => (server.db.prepare('SELECT count(*) AS n FROM invoices').get() as { n: number }).n;

  before(async () => {
    server = await startTestServer();
    const patient = createPatient(server.db, buildPatient());
    const invoice = createInvoice(server.db, buildInvoice(patient.id, { total: 50 }));
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
      },
      { useCase: LIST_INVOICES, api: { method: 'GET', path: '/invoices' }, cli: ['invoice', 'list'] },
      { useCase: READ_INVOICE, api: { method: 'GET', path: `/invoices/${invoice.id}` }, cli: ['invoice', 'show', invoice.invoice_number] },
      { useCase: CREATE_INVOICE, cli: ['invoice', 'create', '--patient-id', patient.patient_number, '--total', '20'] },
      { useCase: DAY_REPORT, cli: ['report', 'day'] },
    ];
  });
  after(() => server.close());

  it('is refused by the API and the desk alike, 403 MODULE_DISABLED naming the declared module, and nothing changes', async () => {
    for (const { useCase, api, cli } of cases) {
      const module = useCase.module!;
      const refusal = errors.moduleDisabled(module);
      setModuleEnabled(server.db, module, false);
      try {
        const counts = [payments(), invoices()];
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
        assert.deepEqual([payments(), invoices()], counts, `${cli.join(' ')} changed nothing`);
      } finally {
        setModuleEnabled(server.db, module, true);
      }
      // Switched on again, the same requests are answered (the refusal was the switch's).
      if (api !== undefined && api.method === 'GET') assert.equal((await server.request(api.method, api.path)).status, 200);
      if (useCase !== RECORD_PAYMENT && useCase !== CREATE_INVOICE) {
        assert.equal((await runClinic([...cli, '--json', '--data', server.dataDir])).code, 0, cli.join(' '));
      }
    }
  });

  it('is an API operation whose module is its use case’s, never one a route declares itself', () => {
    for (const operation of OPERATIONS) {
      assert.equal(operation.module, operation.useCase?.module, operation.operationId);
    }
    assert.deepEqual(
      OPERATIONS.filter((operation) => operation.module !== undefined).map((operation) => operation.operationId),
      ['listInvoices', 'getInvoice', 'voidInvoice', 'recordPayment', 'refundPayment'],
    );
  });
});

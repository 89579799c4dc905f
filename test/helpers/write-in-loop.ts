// A second process writing money, for the tests that payments or refunds from several processes at
// once neither lose an update, refuse a write, nor give back more than was paid
// (test/domain/payments/record-payment.test.ts and refund-payment.test.ts).
//   node --import tsx test/helpers/write-in-loop.ts pay DATA_DIR INVOICE_ID COUNT START_AT_MS
//   node --import tsx test/helpers/write-in-loop.ts refund DATA_DIR PAYMENT_ID COUNT START_AT_MS
// Waits until START_AT_MS so that every process writes at the same moment, then tries COUNT
// payments of 0.01 in cash (or refunds of 0.01) and prints {"recorded": n, "refused": [codes]}.
import { openDatabase } from '../../src/db/open-database.js';
import { classifyError } from '../../src/domain/classify-error.js';
import { RECORD_PAYMENT } from '../../src/domain/payments/record-payment.js';
import { REFUND_PAYMENT } from '../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../src/domain/use-case.js';

const [kind = '', dataDir = '', id = '', count = '0', startAt = '0'] = process.argv.slice(2);
if (kind !== 'pay' && kind !== 'refund') throw new Error(`write-in-loop: pay or refund, not "${kind}"`);
const db = openDatabase(dataDir);
// Each process appends its audit events too: the trail's seq is contended as the money is.
const caller = { source: 'cli', actor: { type: 'cli', id: `loop ${process.pid}`, name: 'loop', source: 'test', requestId: null } } as const;
const write =
  kind === 'pay'
    ? () => performUseCase(RECORD_PAYMENT, db, { path: { invoice_id: id }, header: {}, body: { amount: '0.01', method: 'cash' } }, caller)
    : () => performUseCase(REFUND_PAYMENT, db, { path: { payment_id: id }, header: {}, body: { amount: '0.01', reason: 'race' } }, caller);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
let recorded = 0;
const refused: string[] = [];
for (let i = 0; i < Number(count); i++) {
  try {
    write();
    recorded++;
  } catch (error) {
    const refusal = classifyError(error);
    refused.push(refusal && 'code' in refusal ? refusal.code : String(error));
  }
}
db.close();
process.stdout.write(JSON.stringify({ recorded, refused }));

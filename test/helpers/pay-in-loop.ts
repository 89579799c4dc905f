// A second process recording payments, for the test that payments from several processes at once
// neither lose an update nor refuse a write (test/domain/payments.test.ts).
//   node --import tsx test/helpers/pay-in-loop.ts DATA_DIR INVOICE_ID COUNT START_AT_MS
// Waits until START_AT_MS so that every process pays at the same moment, then records COUNT
// payments of 0.01 in cash and prints {"recorded": n, "refused": [codes]}.
import { openDatabase } from '../../src/db/open-database.js';
import { classifyError } from '../../src/domain/errors.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';

const [dataDir = '', invoiceId = '', count = '0', startAt = '0'] = process.argv.slice(2);
const db = openDatabase(dataDir);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
let recorded = 0;
const refused: string[] = [];
for (let i = 0; i < Number(count); i++) {
  try {
    recordPayment(db, { path: { invoice_id: invoiceId }, headers: {}, body: { amount: '0.01', method: 'cash' } });
    recorded++;
  } catch (error) {
    const refusal = classifyError(error);
    refused.push(refusal && 'code' in refusal ? refusal.code : String(error));
  }
}
db.close();
process.stdout.write(JSON.stringify({ recorded, refused }));

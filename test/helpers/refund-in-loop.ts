// A second process recording refunds, for the test that refunds from several processes at once
// never give back more than was paid (test/domain/payments.test.ts).
//   node --import tsx test/helpers/refund-in-loop.ts DATA_DIR PAYMENT_ID COUNT START_AT_MS
// Waits until START_AT_MS so that every process refunds at the same moment, then tries COUNT
// refunds of 0.01 and prints {"recorded": n, "refused": [codes]}.
import { openDatabase } from '../../src/db/open-database.js';
import { classifyError } from '../../src/domain/errors.js';
import { REFUND_PAYMENT } from '../../src/domain/payments/refund-payment.js';
import { performUseCase } from '../../src/domain/use-case.js';

const [dataDir = '', paymentId = '', count = '0', startAt = '0'] = process.argv.slice(2);
const db = openDatabase(dataDir);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
let recorded = 0;
const refused: string[] = [];
for (let i = 0; i < Number(count); i++) {
  try {
    performUseCase(
      REFUND_PAYMENT,
      db,
      { path: { payment_id: paymentId }, header: {}, body: { amount: '0.01', reason: 'race' } },
      { source: 'cli' },
    );
    recorded++;
  } catch (error) {
    const refusal = classifyError(error);
    refused.push(refusal && 'code' in refusal ? refusal.code : String(error));
  }
}
db.close();
process.stdout.write(JSON.stringify({ recorded, refused }));

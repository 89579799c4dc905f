import { existsSync } from 'node:fs';
import { listDocumentFiles, listInvoicePaymentMismatches } from '../../db/check-queries.js';
import { documentFilePath, tempFilePath } from '../../db/document-files.js';
import { foreignKeyViolations, integrityProblems } from '../../db/maintenance.js';
import type { Db } from '../../db/open-database.js';
import { digestFile } from './data-dir.js';

/** The outcome of one named check: what it found. */
export interface CheckOutcome {
  name: string;
  description: string;
  status: 'ok' | 'failed';
  /** One sentence per problem found. */
  findings: string[];
}

interface NamedCheck {
  name: string;
  description: string;
  run(db: Db, dataDir: string): Promise<string[]> | string[];
}

/** Ids are UUIDs; anything else in a path-forming column is reported, never used as a path. */
const SAFE_ID = /^[0-9A-Za-z-]{1,64}$/;

/** Every document row's file, checked for presence, size and SHA-256. */
async function checkDocumentFiles(db: Db, dataDir: string): Promise<string[]> {
  const findings: string[] = [];
  for (const row of listDocumentFiles(db)) {
    const label = `document ${row.id} of patient ${row.patient_id}`;
    if (!SAFE_ID.test(row.id) || !SAFE_ID.test(row.patient_id)) {
      findings.push(`${label}: its ids cannot name a file under documents/`);
      continue;
    }
    const path = documentFilePath(dataDir, row.patient_id, row.id);
    let digest;
    try {
      digest = await digestFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && existsSync(tempFilePath(dataDir, row.id))) {
        findings.push(`${label}: file is missing: its upload was cut off and waits in tmp/; the next \`clinic serve\` puts it in place: ${path}`);
      } else {
        findings.push(`${label}: ${code === 'ENOENT' ? 'file is missing' : `file cannot be read (${code ?? String(error)})`}: ${path}`);
      }
      continue;
    }
    if (digest.size !== row.size) findings.push(`${label}: file has ${digest.size} bytes, the database records ${row.size}: ${path}`);
    else if (digest.sha256 !== row.sha256.toLowerCase()) findings.push(`${label}: file's SHA-256 is ${digest.sha256}, the database records ${row.sha256}: ${path}`);
  }
  return findings;
}

/** The checks `clinic check` runs, in order. */
export const CHECKS: readonly NamedCheck[] = [
  {
    name: 'integrity',
    description: 'SQLite integrity_check: the database file is sound',
    run: (db) => integrityProblems(db),
  },
  {
    name: 'foreign_keys',
    description: 'SQLite foreign_key_check: no row refers to a missing row',
    run: (db) =>
      foreignKeyViolations(db).map((v) => `${v.table} row ${v.rowid ?? '(without rowid)'} refers to a missing row of ${v.parent}`),
  },
  {
    name: 'document_files',
    description: 'every document row has its file, with the recorded size and SHA-256',
    run: checkDocumentFiles,
  },
  {
    name: 'invoice_payments',
    description: "every invoice's amount paid equals the sum of its payments",
    run: (db) =>
      listInvoicePaymentMismatches(db).map(
        (m) => `invoice ${m.invoice_id}: amount paid is ${m.amount_paid_cents} cents, its payments add up to ${m.payments_cents} cents`,
      ),
  },
];

/** Runs every check over a data directory's database and files; nothing is changed. */
export async function runChecks(db: Db, dataDir: string): Promise<CheckOutcome[]> {
  const outcomes: CheckOutcome[] = [];
  for (const check of CHECKS) {
    const { name, description } = check;
    const findings = await check.run(db, dataDir);
    outcomes.push({ name, description, status: findings.length === 0 ? 'ok' : 'failed', findings });
  }
  return outcomes;
}

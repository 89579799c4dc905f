// `npm run test:node-sqlite`: the files in which the driver decides something, again with
// node:sqlite, the driver of clinic.exe, on the pinned Node 24 (Node 20 has no node:sqlite)
// (docs/development.md, "What each run covers"). CLINIC_NODE_SQLITE_ALL=1 runs the suites whole.
import { existingTestFiles, runTestFiles, testFilesIn } from './run-tests.mjs';

// Every statement lives in src/db, and each of its modules is tested beside it in test/db: those
// tests, the commit groups and the change watch (test/server/writes) and the real faults
// (test/fault: a full disk, kill -9, a power cut, a second process holding the lock, the audit
// trail and the feed under them) run whole. The random requests against the HTTP parsers and the
// week of reminders in real time run no statement of their own.
const SUITES = ['test/db', 'test/fault', 'test/server/writes'];
const NO_STATEMENT_OF_THEIR_OWN = existingTestFiles(['test/fault/fuzz.test.ts', 'test/fault/reminder-week.test.ts']);
// The files outside those that run a range of src/db that they do not: chosen by the V8 coverage of
// src/db and src/server/writes under node:sqlite, file by file, against the run of every suite
// (docs/development.md). A statement that test/db comes to cover takes its file off this list.
const REACHING_PAST_TEST_DB = existingTestFiles(
  [
    'appointments/list-appointments', // the appointment list by status, and of one doctor and one patient
    'appointments/update-appointment', // overlaps found, services replaced
    'audit/anchor-trail',
    'audit/list-audit-events', // the audit trail's filters
    'desk/day-report', // the day's payments and refunds
    'desk/desk-rules', // a patient found by a term
    'invoices/create-invoice', // open invoices counted by currency, an invoice voided
    'maintenance/check', // an older schema refused
    'patient-export/export-summary',
    'reminders/plan-reminders', // reminders withdrawn, ended and moved
    'reminders/preview-reminders', // reminders due between two times
    'reminders/send-reminders',
    'reminders/sms-gateway', // a reminder leased, sent, retried and ended
  ].map((name) => `test/domain/${name}.test.ts`),
);

const suites =
  process.env.CLINIC_NODE_SQLITE_ALL === '1'
    ? testFilesIn(['test/db', 'test/domain', 'test/fields', 'test/server', 'test/fault', 'test/cli'])
    : [...testFilesIn(SUITES).filter((file) => !NO_STATEMENT_OF_THEIR_OWN.includes(file)), ...REACHING_PAST_TEST_DB];
console.log(`node:sqlite on Node ${process.versions.node}: ${suites.length} test files`);
process.exitCode = runTestFiles(suites, { ...process.env, CLINIC_SQLITE_DRIVER: 'node:sqlite' });

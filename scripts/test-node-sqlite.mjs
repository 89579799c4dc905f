// `npm run test:node-sqlite`: the suites again with node:sqlite, the driver of clinic.exe, on the
// pinned Node 24 (Node 20 has no node:sqlite), less the files in which the driver decides nothing
// (docs/development.md, "What each run covers"). CLINIC_NODE_SQLITE_ALL=1 runs them too.
import { existingTestFiles, runTestFiles, testFilesIn } from './run-tests.mjs';

// What these test is the wire, a browser, a third-party client, the file system, the terminal,
// the machine's time zone or real hours passing, not a statement: the driver runs no SQL in them
// that the other files do not run too. Checked by comparing the V8 coverage of src/db under
// node:sqlite with them and without (docs/development.md).
const DRIVER_DECIDES_NOTHING = existingTestFiles(
  [
    // The wire and the documents describing it.
    'server/browser-network',
    'server/connections/connection-limits',
    'server/connections/expect-continue',
    'server/connections/http-server',
    'server/connections/plain-beside-tls',
    'server/generated-client',
    'server/middleware/document-upload',
    'server/middleware/guard-host-and-origin',
    'server/middleware/json-body',
    'server/openapi/docs-page',
    'server/openapi/examples',
    'server/prism-proxy',
    'server/routes/openapi',
    // The process, its files, folders, users and terminal; TLS; the machine's time zone.
    'cli/commands/autostart',
    'cli/commands/settings',
    'cli/commands/tls',
    'cli/desk-group',
    'cli/desk-pc',
    'cli/executable',
    'cli/given-files',
    'cli/progress-bar',
    'cli/serve-first-run',
    'cli/serve-start',
    'cli/terminal-text',
    'db/data-directory',
    'db/file-modes',
    'domain/maintenance/tls-check',
    'server/connections/network-policy',
    // Random requests against the HTTP parsers; a week of reminders in real time (the sender's
    // statements run in test/domain and test/server).
    'fault/fuzz',
    'fault/reminder-week',
  ].map((name) => `test/${name}.test.ts`),
);

const all = process.env.CLINIC_NODE_SQLITE_ALL === '1';
const suites = testFilesIn(['test/db', 'test/domain', 'test/fields', 'test/server', 'test/fault', 'test/cli']).filter(
  (file) => all || !DRIVER_DECIDES_NOTHING.includes(file),
);
console.log(`node:sqlite on Node ${process.versions.node}: ${suites.length} test files`);
process.exitCode = runTestFiles(suites, { ...process.env, CLINIC_SQLITE_DRIVER: 'node:sqlite' });

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

// Where a newcomer finds a test (docs/development.md, "Where a test goes"): `src/X.ts` is tested in
// `test/X.test.ts`, or in a folder `test/X/` where its tests are many. A source file without either
// is named here with where its behaviour is tested instead, or why it has none of its own; a new
// source file must have its test or its line here.

/** Declarations that decide nothing themselves: what they declare is held by the tests of what reads them. */
const DECLARES = 'declares only: its fields, names or types are read and held by the tests of what uses them';

const ELSEWHERE: Readonly<Record<string, string>> = {
  'src/adapters/smtp-url.ts':
    "test/server/workers/notification-worker.test.ts (serve's --smtp-url and CLINIC_SMTP_URL, a malformed one refused)",
  'src/audit-actions.ts': DECLARES,
  'src/autostart/supervisor.ts': 'test/cli/commands/autostart.test.ts',
  'src/autostart/windows-task.ts': 'test/cli/commands/autostart.test.ts',
  'src/change-types.ts': DECLARES,
  'src/cli/audit-export-printout.ts': 'test/cli/commands/audit.test.ts',
  'src/cli/commands/desk.ts': 'test/cli/desk-pc.test.ts (desk pair, list and revoke, as a PC joins)',
  'src/cli/database.ts': "test/db/data-directory.test.ts (every command's data directory, hostile ones too)",
  'src/cli/desk-command-runner.ts': 'test/server/routes/desk.test.ts',
  'src/cli/desk-pc-commands.ts': 'test/cli/desk-pc.test.ts',
  'src/cli/desk-pc/audit-export.ts': 'test/cli/desk-pc.test.ts',
  'src/cli/desk-pc/desk-join.ts': 'test/cli/desk-pc.test.ts',
  'src/cli/desk-pc/desk-sessions.ts': 'test/cli/desk-pc.test.ts',
  'src/cli/desk-pc/forward-command.ts': 'test/cli/desk-pc.test.ts',
  'src/cli/desk-pc/join-server.ts': 'test/cli/desk-pc.test.ts',
  'src/cli/document-table.ts': 'test/cli/commands/document.test.ts',
  'src/cli/patient-export-printout.ts': 'test/cli/commands/patient-export.test.ts',
  'src/cli/subcommand.ts': 'test/cli/program.test.ts',
  'src/contact-rules.ts': DECLARES,
  'src/db/drivers/connection-types.ts': DECLARES,
  'src/db/migration-step.ts': DECLARES,
  'src/domain/audit/audit-pages.ts': 'test/domain/audit/export-audit-trail.test.ts',
  'src/domain/audit/system-user.ts': 'test/domain/reminders/send-reminders.test.ts (what the server records as itself)',
  'src/domain/changes/record-changes.ts': "test/domain/invoices/void-invoice.test.ts (as every table's change events)",
  'src/domain/clock.ts': 'test/domain/people/sessions.test.ts (the one clock, moved by the tests)',
  'src/domain/desk/desk-command-files.ts': 'test/cli/desk-pc.test.ts',
  'src/domain/desk/desk-context.ts': 'test/cli/desk.test.ts',
  'src/domain/desk/desk-records.ts': 'test/cli/desk.test.ts',
  'src/domain/documents/document-limit.ts': DECLARES,
  'src/domain/maintenance/failure-text.ts': 'test/domain/maintenance/check.test.ts',
  'src/domain/patient-export/export-readme.ts': 'test/domain/patient-export/export-archive.test.ts',
  'src/domain/payments/idempotency-keys.ts': 'test/domain/payments/record-payment.test.ts',
  'src/domain/payments/present-payment.ts': 'test/domain/payments/record-payment.test.ts',
  'src/domain/reminders/reminder-channels.ts': 'test/domain/reminders/preview-reminders.test.ts',
  'src/domain/reminders/reminder-updated.ts': 'test/domain/reminders/send-reminders.test.ts (and set-reminders.test.ts)',
  'src/domain/use-case-context.ts': 'test/domain/use-case.test.ts',
  'src/domain/validation/blank-name.ts': 'test/domain/people/persons.test.ts',
  'src/domain/validation/blank-reason.ts': 'test/domain/invoices/void-invoice.test.ts',
  'src/fields/appointment-fields.ts': DECLARES,
  'src/fields/audit-fields.ts': DECLARES,
  'src/fields/billing-fields.ts': DECLARES,
  'src/fields/catalog-fields.ts': DECLARES,
  'src/fields/change-event-fields.ts': DECLARES,
  'src/fields/columns.ts': 'test/db/schema-sql.test.ts',
  'src/fields/document-fields.ts': DECLARES,
  'src/fields/field-spec.ts': 'test/domain/validation/validate.test.ts',
  'src/fields/health-fields.ts': DECLARES,
  'src/fields/idempotency-fields.ts': DECLARES,
  'src/fields/lookup-fields.ts': DECLARES,
  'src/fields/notification-fields.ts': DECLARES,
  'src/fields/page-fields.ts': DECLARES,
  'src/fields/patient-fields.ts': DECLARES,
  'src/fields/plain-object.ts': 'test/domain/validation/validate.test.ts',
  'src/fields/reminder-fields.ts': DECLARES,
  'src/fields/session-fields.ts': DECLARES,
  'src/logger.ts': 'test/server/connections/http-server.test.ts',
  'src/main.ts': 'test/cli/program.test.ts (the entry every spawned command starts at)',
  'src/role-names.ts': DECLARES,
  'src/sea/loader.ts': 'test/cli/executable.test.ts',
  'src/sea/main.ts': 'test/cli/executable.test.ts',
  'src/sea/program-script.ts': 'test/cli/executable.test.ts',
  'src/server/api/api-caller.ts': 'test/server/middleware/authorize.test.ts',
  'src/server/api/api-operations.ts': 'test/server/routes/openapi.test.ts (every operation declared once, documented and mounted)',
  'src/server/api/app.ts': 'test/server/middleware/handle-errors.test.ts',
  'src/server/api/state.ts': DECLARES,
  'src/server/clinic-server.ts': 'test/cli/commands/serve.test.ts',
  'src/server/config.ts': 'test/server/connections/http-server.test.ts',
  'src/server/connections/peer-address.ts': 'test/server/middleware/throttle-failed-keys.test.ts',
  'src/server/middleware/log-requests.ts': 'test/server/connections/http-server.test.ts',
  'src/server/middleware/require-module.ts': 'test/server/routes/invoices.test.ts (403 MODULE_DISABLED)',
  'src/server/middleware/route-fallback.ts': 'test/server/routes/invoices.test.ts (405 with Allow)',
  'src/server/openapi/docs-assets.ts': 'test/server/openapi/docs-page.test.ts',
  'src/server/openapi/info.ts': 'test/server/routes/openapi.test.ts',
  'src/server/openapi/models.ts': 'test/server/routes/openapi.test.ts',
  'src/server/openapi/operation-spec.ts': 'test/server/routes/openapi.test.ts',
  'src/server/workers/pass-loop.ts': 'test/fault/reminder-week.test.ts (the workers of serve in real time)',
  'src/server/workers/purge-worker.ts': 'test/domain/retention/purge-patients.test.ts (what its hourly run calls)',
  'src/server/workers/reminder-worker.ts': 'test/fault/reminder-week.test.ts',
  'src/server/workers/reply-worker.ts': 'test/fault/reminder-week.test.ts',
  'src/server/workers/time-zone-notice.ts': 'test/cli/commands/settings.test.ts',
  'src/version.ts': DECLARES,
};

const sources = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join('src', file).replaceAll('\\', '/'))
  .sort();
const testOf = (source: string) => source.replace(/^src\//, 'test/').replace(/\.ts$/, '.test.ts');
const folderOf = (source: string) => source.replace(/^src\//, 'test/').replace(/\.ts$/, '');

it('has a test beside every source file, or says where it is tested and why', () => {
  const untested = sources.filter((source) => !existsSync(testOf(source)) && !existsSync(folderOf(source)) && !(source in ELSEWHERE));
  assert.deepEqual(untested, [], 'source files with no test beside them and no line in ELSEWHERE');
});

it('names in ELSEWHERE only source files without a test of their own, and only test files that exist', () => {
  for (const [source, where] of Object.entries(ELSEWHERE)) {
    assert.ok(sources.includes(source), `${source} is no source file`);
    assert.ok(!existsSync(testOf(source)), `${source} has its own test now: take its line out`);
    if (where.startsWith('test/')) assert.ok(existsSync(where.split(' ')[0]!), `${source}: ${where} is no test file`);
  }
});

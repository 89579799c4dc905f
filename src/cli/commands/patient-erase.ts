import { Option, type Command } from 'commander';
import { ERASE_PATIENT, erasureJson, type ErasureResult } from '../../domain/retention/erase-patient.js';
import type { ErasureGroup } from '../../domain/retention/erasure-plan.js';
import { resolvePatientReference } from '../../domain/references.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { deskTable, heading, localDateTime, shortDate } from '../desk-format.js';
import { fieldArgument } from '../field-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

interface EraseOptions extends CommonOptions {
  dryRun?: boolean;
  confirm?: boolean;
}

const COUNTRIES: Record<string, string> = { AT: 'Austria', DE: 'Germany' };

const DECISIONS: Record<ErasureGroup['decision'], string> = { erase_now: 'erased now', keep_until: 'kept until', keep: 'kept' };

/** The printout: each group of what is erased and kept, and what happened. */
function erasurePrintout(result: ErasureResult, timeZone: string): string {
  const rows = result.summary.map((group) => [
    group.category,
    String(group.count),
    DECISIONS[group.decision],
    group.keep_until === null ? (group.decision === 'keep' ? 'as the trail' : '') : shortDate(group.keep_until),
    group.rule ?? '',
  ]);
  const table = deskTable(
    [{ header: 'What' }, { header: 'Count', align: 'right' }, { header: 'Decision' }, { header: 'Until' }, { header: 'Rule' }],
    rows,
    'Nothing is kept of this patient but their number.',
  );
  const title = `Erasure of ${result.patient_number} ${result.patient_name} under the retention of ${COUNTRIES[result.country] ?? result.country} (records ${result.records_years} years)`;
  const kept = result.summary.filter((group) => group.decision === 'keep_until').map((group) => group.keep_until!);
  const lastDay = kept.length === 0 ? null : kept.reduce((a, b) => (b > a ? b : a));
  let outcome: string;
  if (result.dry_run) {
    outcome = 'A dry run: nothing was changed. `--confirm` erases as shown.\n';
  } else if (result.erased === null) {
    outcome = `Erased before, on ${localDateTime(result.erased_at!, timeZone)}: nothing more was changed or recorded.\n`;
  } else {
    outcome =
      `Erased on ${localDateTime(result.erased_at!, timeZone)}. ` +
      (lastDay === null
        ? 'Only the audit trail names the patient now.\n'
        : `What is kept is restricted: only an admin sees it, until \`clinic serve\` purges the last of it on the day after ${shortDate(lastDay)}.\n`);
  }
  return heading(title) + table + outcome;
}

/** `clinic patient erase REF --dry-run|--confirm` (interface 1.3.0, "Erasure"): desk only, admin. */
export function registerPatientEraseCommand(group: Command, io: CliIo): void {
  fieldArgument(
    subcommand(
      group,
      'erase',
      "erase a patient's data as far as the retention rules allow (GDPR Art. 17); what must be kept is restricted, then purged by serve",
    ),
    '<ref>',
    'the patient: its number (P-000042, P-42) or its id',
    'patient_id',
  )
    .addOption(new Option('--dry-run', 'show what would be erased now and what kept until when; change nothing').conflicts('confirm'))
    .addOption(new Option('--confirm', 'erase as --dry-run shows, in one transaction; irreversible'))
    .action(async (ref: string, options: EraseOptions, command: Command) => {
      if (options.dryRun !== true && options.confirm !== true)
        command.error("error: give exactly one of '--dry-run' and '--confirm'", { exitCode: 2 });
      await runUseCaseCommand(io, options, ERASE_PATIENT, {
        request: (db) => ({ path: { patient_id: resolvePatientReference(db, ref) }, body: { dry_run: options.dryRun === true } }),
        json: erasureJson,
        print: (result, db) => erasurePrintout(result, clinicTimeZone(db)),
      });
    });
}

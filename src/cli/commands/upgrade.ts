import type { Command } from 'commander';
import { PROGRAM_VERSION } from '../../version.js';
import { fileSize } from '../desk-format.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { withProgressBar } from '../progress-bar.js';
import { wrapLines } from '../report-error.js';
import { subcommand } from '../subcommand.js';
import type { UpgradeSummary } from '../../domain/maintenance/upgrade.js';

/** The upgrade code, loaded only by this command (it brings the backup's archive library). */
const loadUpgrade = () => import('../../domain/maintenance/upgrade.js');

/** `clinic upgrade`: a verified backup of the database as an older program left it, then the migration. */
export function registerUpgradeCommand(program: Command, io: CliIo): void {
  subcommand(
    program,
    'upgrade',
    "bring the database to this program's schema after installing a new version, writing a verified backup first",
  )
    .option('--backup <file>', 'where the backup goes (a .tar.gz; never overwritten); by default upgrade-backups/ in the data directory')
    .action(async (options: CommonOptions & { backup?: string }) => {
      const { upgradeDataDirectory } = await loadUpgrade();
      const summary = await withProgressBar(io, 'Backup', (progress) =>
        upgradeDataDirectory(options.data, {
          ...(options.backup === undefined ? {} : { backupFile: options.backup }),
          ...(progress === undefined ? {} : { progress }),
        }),
      );
      emit(io, options, summary, () => wrapLines(upgradeText(summary)));
    });
}

/** What people are told: the backup and where it is, the migration, and the way back. */
function upgradeText(summary: UpgradeSummary): string {
  if (summary.backup === null)
    return `the database in ${summary.data_dir} is up to date (schema version ${summary.schema_version}, clinic ${PROGRAM_VERSION}); nothing was changed\n`;
  const { backup } = summary;
  return [
    `backed up the database as it was (schema version ${summary.schema_version_before}, ${fileSize(backup.database_bytes)}) and ${backup.documents} document(s) to ${backup.file} (${fileSize(backup.bytes)}), read back and verified`,
    `upgraded the database in ${summary.data_dir} from schema version ${summary.schema_version_before} to ${summary.schema_version} (clinic ${PROGRAM_VERSION})`,
    `the way back, should it be needed: clinic restore ${backup.file} into an empty data directory (docs/install.md, "Install a new version")`,
  ]
    .map((line) => `${line}\n`)
    .join('');
}

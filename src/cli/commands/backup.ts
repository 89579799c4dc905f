import type { Command } from 'commander';
import { clinicTimeZone } from '../../domain/settings.js';
import { recordDataExport } from '../../domain/audit/record-audit.js';
import { systemUserActor } from '../../domain/audit/system-user.js';
import { connectionRunner } from '../../domain/use-case.js';
import { withDatabase } from '../database.js';
import { fileSize, localDateTime } from '../desk-format.js';
import { withProgressBar } from '../progress-bar.js';
import { wrapLines } from '../report-error.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** The backup code and its archive library (tar), loaded only by the commands that write or read an archive. */
const loadBackups = () => import('../../domain/maintenance/backup.js');

/** `clinic backup FILE` and `clinic restore FILE`. */
export function registerBackupCommands(program: Command, io: CliIo): void {
  subcommand(program, 'backup', 'write the database and the documents to one verified archive (safe while the server runs)')
    .argument('<file>', 'the archive to write (a .tar.gz); never overwritten')
    .action(async (file: string, options: CommonOptions) => {
      await withDatabase(options, async (db) => {
        const { createBackup } = await loadBackups();
        const summary = await withProgressBar(io, 'Backup', (progress) =>
          createBackup(db, options.data, file, {
            record: () => recordDataExport(connectionRunner(db), db, systemUserActor()),
            ...(progress === undefined ? {} : { progress }),
          }),
        );
        emit(io, options, summary, () =>
          wrapLines(
            `backed up the database (${fileSize(summary.database_bytes)}) and ${summary.documents} document(s) to ${summary.file} (${fileSize(summary.bytes)})\n`,
          ),
        );
      });
    });

  subcommand(program, 'restore', 'restore a backup into an empty data directory, verifying every file')
    .argument('<file>', 'an archive written by clinic backup')
    .action(async (file: string, options: CommonOptions) => {
      const { restoreBackup } = await loadBackups();
      const summary = await withProgressBar(io, 'Restore', (progress) => restoreBackup(file, options.data, systemUserActor(), progress));
      // For people, when the backup was made in the clinic's time, as the restored database keeps it.
      const timeZone = options.json === true ? undefined : await withDatabase(options, (db) => clinicTimeZone(db));
      emit(io, options, summary, () =>
        wrapLines(
          `restored the backup of ${localDateTime(summary.created_at, timeZone!)} (clinic ${summary.program_version}, ${summary.documents} document(s)) into ${summary.data_dir}\n`,
        ),
      );
    });
}

import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CheckpointOutcome } from '../../domain/audit/anchor-trail.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { recordDataExport } from '../../domain/audit/record-audit.js';
import { systemUserActor } from '../../domain/audit/system-user.js';
import { connectionRunner } from '../../domain/use-case.js';
import { withDatabase } from '../database.js';
import { warnGivenTo } from '../given-files.js';
import { fileSize, localDateTime } from '../desk-format.js';
import { withProgressBar } from '../progress-bar.js';
import { wrapLines } from '../report-error.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import type { RestoreSummary } from '../../domain/maintenance/backup.js';

/** The backup code and its archive library (tar), loaded only by the commands that write or read an archive. */
const loadBackups = () => import('../../domain/maintenance/backup.js');

/** A line on stderr when the trail could not be anchored (audit-anchor.ts): the backup or restore itself stands. */
function warnUnanchored(io: CliIo, outcome: CheckpointOutcome): void {
  if ('refused' in outcome) io.stderr(`warning: the audit trail's checkpoint was not written: ${outcome.refused}\n`);
}

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
            anchored: (outcome) => warnUnanchored(io, outcome),
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
    .option(
      '--replaces <dir>',
      'the data directory this restore replaces (moved aside): where its change feed stopped is read, so that no event number is given twice',
    )
    .action(async (file: string, options: CommonOptions & { replaces?: string }) => {
      const { restoreBackup } = await loadBackups();
      const summary = await withProgressBar(io, 'Restore', (progress) =>
        restoreBackup(file, options.data, systemUserActor(), {
          ...(options.replaces === undefined ? {} : { replaces: options.replaces }),
          anchored: (outcome) => warnUnanchored(io, outcome),
          gaveTo: (owner) => warnGivenTo(io, 'the restore', resolve(options.data), owner),
          ...(progress === undefined ? {} : { progress }),
        }),
      );
      // For people, when the backup was made in the clinic's time, as the restored database keeps it.
      const timeZone = options.json === true ? undefined : await withDatabase(options, (db) => clinicTimeZone(db));
      emit(
        io,
        options,
        summary,
        () =>
          wrapLines(
            `restored the backup of ${localDateTime(summary.created_at, timeZone!)} (clinic ${summary.program_version}, ${summary.documents} document(s)) into ${summary.data_dir}\n`,
          ) + lostFeedText(summary.change_feed_lost),
      );
    });
}

/** What people are told of the change feed's numbers a restore marked lost, or nothing. */
function lostFeedText(lost: RestoreSummary['change_feed_lost']): string {
  if (lost === null) return '';
  const why =
    lost.bound === 'replaced_database'
      ? 'the replaced database handed them out after the backup'
      : lost.unreadable === null
        ? 'the replaced database was not named with --replaces: a margin'
        : `a margin: the replaced database was not read: ${lost.unreadable}`;
  return [
    `the change feed goes on at seq ${lost.last_seq + 1}; seq ${lost.first_seq} to ${lost.last_seq} are lost (${why}).`,
    `An integration that read past seq ${lost.restart_after} must start again after it (FEED_POSITION_LOST).`,
  ]
    .map((line) => `${line}\n`)
    .join('');
}

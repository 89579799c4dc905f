import { auditExportPrintout } from '../audit-export-printout.js';
import { deskPcRun, offerDownload } from '../desk-identity.js';
import { auditPagesQuery } from '../../domain/audit/audit-pages.js';
import type { Command } from 'commander';
import type { Db } from '../../db/open-database.js';
import type { AuditEvent } from '../../domain/audit/audit-event.js';
import { exportFhirAuditEvents } from '../../domain/audit/export-audit-trail.js';
import type { AnchorReport } from '../../domain/audit/anchor-trail.js';
import { EXPORT_AUDIT_TRAIL, LIST_AUDIT_TRAIL, VERIFY_AUDIT_TRAIL } from '../../domain/desk/audit-trail.js';
import { patientNames } from '../../domain/desk/desk-records.js';
import { resolvePatientReference } from '../../domain/references.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { calendarDay, deskTable, heading, localDateTime, patientLabel } from '../desk-format.js';
import { DESK_DATE_FORMS } from '../desk-input.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { parseTargetPath } from '../target-path.js';
import { runUseCaseCommand } from '../use-case-command.js';

interface WindowOptions extends CommonOptions {
  date?: string;
  from?: string;
  to?: string;
}

/** `--date D`, or `--from` and `--to`: not both (a usage error, exit 2). */
function refuseDateWithRange(options: WindowOptions, command: Command): void {
  if (options.date !== undefined && (options.from !== undefined || options.to !== undefined)) {
    // Printed by commander, then exit 2: a CommanderError thrown from an action is not printed (report-error.ts).
    command.error('error: give --date, or --from and --to, not both', { exitCode: 2 });
  }
}

/** Who, as people read it: the key's name or the desk's user. */
/** What kind of actor each is, as the By column says it after the name. */
const ACTOR_KINDS: Record<AuditEvent['actor_type'], string> = {
  api_key: 'API key',
  cli: 'desk',
  person: 'person',
  device: 'desk PC',
  system: 'clinic serve',
};
const actorLabel = (event: AuditEvent) => `${event.actor_name} (${ACTOR_KINDS[event.actor_type]})`;

/** What was done, with the changed fields or the search typed. */
function actionLabel(event: AuditEvent): string {
  const detail = event.detail as { changed?: string[]; q?: string | null } | null;
  if (detail?.changed !== undefined)
    return `${event.action}: ${detail.changed.length === 0 ? 'nothing changed' : detail.changed.join(', ')}`;
  if (detail?.q !== undefined) return `${event.action} "${detail.q ?? ''}"`;
  return event.action;
}

/** A patient as people know them: the number (the event's, when it names one) and today's name. */
function patientLabelOf(db: Db, patientId: string, known: string | null = null): string {
  const name = patientNames(db, [patientId]).get(patientId);
  return patientLabel(known ?? name?.patient_number ?? null, name?.first_name ?? null, name?.last_name ?? null);
}

/** The events as a table for people: local time, what, whose (number and today's name), who, from where. */
function formatEvents(db: Db, events: readonly AuditEvent[], title: string): string {
  const timeZone = clinicTimeZone(db);
  const names = new Map<string, string>();
  const whose = (event: AuditEvent) => {
    if (event.patient_id === null) return '';
    let label = names.get(event.patient_id);
    if (label === undefined) {
      label = patientLabelOf(db, event.patient_id, event.patient_number);
      names.set(event.patient_id, label);
    }
    return label;
  };
  return (
    heading(`${title}  (times in ${timeZone})`) +
    deskTable(
      [
        { header: '#', align: 'right' },
        { header: 'When' },
        { header: 'Action', shrink: true },
        { header: 'Patient', shrink: true },
        { header: 'By', shrink: true },
        { header: 'From', shrink: true },
      ],
      events.map((event) => [
        String(event.seq),
        localDateTime(event.at, timeZone),
        actionLabel(event),
        whose(event),
        actorLabel(event),
        event.source,
      ]),
      'No events.',
    )
  );
}

/** What the anchor's checkpoints say, for people (verify's JSON has them as `anchor`). */
function describeAnchor(anchor: AnchorReport, timeZone: string): string {
  if (anchor.state === 'missing')
    return `Not anchored: there is no checkpoint in ${anchor.folder}, so the trail's end is not protected against being cut or rewritten; clinic serve and clinic backup, run as the server's user, write checkpoints.\n`;
  if (anchor.state === 'unreadable') return `Its checkpoints were not checked: ${anchor.reason}.\n`;
  const lines: string[] = [];
  if (anchor.last_checkpoint === null) lines.push('Its anchor holds no checkpoint yet.');
  else {
    const last = anchor.last_checkpoint;
    lines.push(
      `It matches its ${anchor.checkpoints} checkpoint(s); the last, by ${last.kind}, at ${localDateTime(last.at, timeZone)}, anchors #${last.seq}${anchor.unanchored_events > 0 ? ` (${anchor.unanchored_events} event(s) since are not anchored yet)` : ''}.`,
    );
  }
  if (anchor.restored !== null) {
    const restored = anchor.restored;
    lines.push(
      `Restored at ${localDateTime(restored.at, timeZone)} from a backup of ${localDateTime(restored.backup_created_at, timeZone)}, whose trail ended at #${restored.backup_last_seq}.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `clinic audit list|verify|export`: the audit trail for the clinic's IT and its data protection officer. */
export function registerAuditCommands(program: Command, io: CliIo): void {
  const group = program.command('audit').description('the audit trail: who saw or changed whose data, hash-chained');

  subcommand(group, 'list', "the events of a clinic day, or a patient's (--json: as GET /audit-events gives them)")
    .option('--patient <ref>', "only this patient's events: its number (P-000042, P-42) or its id; without a date, all of them")
    .option('--date <day>', `one clinic day: ${DESK_DATE_FORMS} (default: today)`)
    .option('--from <day>', 'from the start of this clinic day')
    .option('--to <day>', 'to the end of this clinic day')
    .action(async (options: WindowOptions & { patient?: string }, command: Command) => {
      await runUseCaseCommand(io, options, LIST_AUDIT_TRAIL, {
        request(db) {
          const patientId = options.patient === undefined ? undefined : resolvePatientReference(db, options.patient);
          refuseDateWithRange(options, command);
          return { query: { patient_id: patientId, date: options.date, from: options.from, to: options.to } };
        },
        json: ({ events }) => events,
        print({ events, days, patient_id: patientId }, db) {
          const when =
            days.from === undefined && days.to === undefined
              ? 'all'
              : days.from === days.to
                ? calendarDay(days.from!)
                : `${days.from === undefined ? '' : calendarDay(days.from)} – ${days.to === undefined ? '' : calendarDay(days.to)}`;
          const whose = patientId === null ? '' : ` of ${patientLabelOf(db, patientId)}`;
          return formatEvents(db, events, `Audit events${whose}, ${when}`);
        },
      });
    });

  subcommand(
    group,
    'verify',
    'recompute the whole chain; exit 1 and AUDIT_CHAIN_BROKEN naming the first event that does not verify',
  ).action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, VERIFY_AUDIT_TRAIL, {
      request: () => ({}),
      // Without an anchor, --json keeps 1.2.0's four fields alone, and the note goes to stderr.
      json(verified) {
        const { anchor, ...chain } = verified;
        if (anchor.state !== 'missing') return verified;
        if (options.json === true && verified.events > 0) io.stderr(describeAnchor(anchor, 'UTC'));
        return chain;
      },
      print: (verified, db) =>
        verified.events === 0
          ? 'The audit trail is empty: nothing has been recorded yet.\n'
          : `The audit trail verifies: ${verified.events} events, from #1 to #${verified.last_seq}.\nThe last hash is ${verified.last_hash}; note it to compare with a later verification.\n${describeAnchor(verified.anchor, clinicTimeZone(db))}`,
    });
  });

  subcommand(group, 'export', 'write events as FHIR R4 AuditEvent resources, one per line (NDJSON)')
    .requiredOption('--fhir <file>', 'the file to write; its folder must exist', parseTargetPath)
    .option('--from <day>', `from the start of this clinic day: ${DESK_DATE_FORMS} (default: the first event)`)
    .option('--to <day>', 'to the end of this clinic day (default: the last event)')
    .option('--force', 'replace the file if it exists (it is kept until the new one is whole)')
    .action(async (options: WindowOptions & { fhir: string; force?: boolean }) => {
      await runUseCaseCommand(io, options, EXPORT_AUDIT_TRAIL, {
        request: () => ({ query: { from: options.from, to: options.to } }),
        // For a desk PC the file is its own: it pages GET /audit-events over this window itself,
        // writes the same lines and says the same (desk-pc/audit-export.ts); nothing is written here.
        deliver: async (window, db) => {
          if (deskPcRun() === undefined) return exportFhirAuditEvents(db, options.fhir, window, { replace: options.force === true });
          offerDownload(`/audit-events?${auditPagesQuery(window)}`);
          return undefined;
        },
        shownByDeskPc: true,
        print: auditExportPrintout,
      });
    });
}

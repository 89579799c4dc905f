import type { Command } from 'commander';
import { BOOK_APPOINTMENT } from '../../domain/appointments/book-appointment.js';
import { READ_APPOINTMENT } from '../../domain/appointments/list-appointments.js';
import { UPDATE_APPOINTMENT } from '../../domain/appointments/update-appointment.js';
import { findAppointment } from '../../db/appointments.js';
import type { Db } from '../../db/open-database.js';
import type { RawRequest } from '../../domain/use-case.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { parseDateTime, toUtcIso } from '../../domain/validation/calendar.js';
import type { Appointment } from '../../domain/appointments/present-appointment.js';
import type { DeskContext } from '../../domain/desk/desk-context.js';
import { readDaySheet, type DaySheet } from '../../domain/desk/day-sheet.js';
import { resolveAppointmentReference, resolvePatientReference } from '../../domain/references.js';
import { APPOINTMENT_INPUT_FIELDS } from '../../fields/appointment-fields.js';
import { withDatabase } from '../database.js';
import { calendarDay, deskRecord, deskTable, heading, localDateTime, localDay, patientLabel, timeSpan } from '../desk-format.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import { readDeskContext } from '../../domain/desk/desk-context.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** The doctor's name, or nothing for an appointment without one. */
const doctorName = (appointment: Appointment, context: DeskContext) =>
  appointment.resource_id === null ? '' : (context.doctorNames.get(appointment.resource_id) ?? '');

/** The services booked, by name, in order. */
const serviceNames = (appointment: Appointment) =>
  appointment.services.map((service) => service.name).join(', ') || (appointment.service_name ?? '');

/** `clinic appointment list` for people: the day sheet, one line per appointment in time order. */
function formatDaySheet({ date, doctor, appointments, context }: DaySheet): string {
  const title = `${calendarDay(date)}  ${doctor === null ? 'all doctors' : doctor.name}  (times in ${context.timeZone})`;
  const table = deskTable(
    [
      { header: 'Time' },
      { header: 'Number' },
      { header: 'Patient', shrink: true },
      ...(doctor === null ? [{ header: 'Doctor', shrink: true }] : []),
      { header: 'Service', shrink: true },
      { header: 'Status', shrink: true },
    ],
    appointments.map((appointment) => [
      timeSpan(appointment.start_at, appointment.end_at, context.timeZone, date),
      appointment.appointment_number,
      patientLabel(appointment.patient_number, appointment.patient_first_name, appointment.patient_last_name),
      ...(doctor === null ? [doctorName(appointment, context)] : []),
      serviceNames(appointment),
      appointment.status,
    ]),
    'No appointments.',
  );
  const count = appointments.length === 0 ? '' : `${appointments.length} appointment${appointments.length === 1 ? '' : 's'}\n`;
  return heading(title) + table + count;
}

/** `clinic appointment show` for people. */
function formatAppointment(appointment: Appointment, context: DeskContext): string {
  const { timeZone } = context;
  const day = localDay(appointment.start_at, timeZone);
  return (
    heading(`Appointment ${appointment.appointment_number}`) +
    deskRecord([
      ['When', `${calendarDay(day)} ${timeSpan(appointment.start_at, appointment.end_at, timeZone, day)} (${timeZone})`],
      ['Patient', patientLabel(appointment.patient_number, appointment.patient_first_name, appointment.patient_last_name)],
      ['Mobile', appointment.patient_mobile],
      ['Cave', appointment.patient_cave],
      ['Doctor', doctorName(appointment, context)],
      ['Service', serviceNames(appointment)],
      ['Title', appointment.title],
      ['Type', appointment.appointment_type],
      ['Status', appointment.status],
      ['Confirmed', appointment.confirmation_state.replaceAll('_', ' ')],
      ['Notes', appointment.notes],
      ['Booked', `${localDateTime(appointment.created_at, timeZone)} (${appointment.booking_source})`],
    ])
  );
}

/** The booking's fields as options: all but `overlap`, which the desk sets from --allow-overlap. */
const BOOKING_OPTION_FIELDS = APPOINTMENT_INPUT_FIELDS.filter((spec) => spec.name !== 'overlap');

/** The status each desk word sets, and what the printout then says. */
const STATUS_COMMANDS = [
  { name: 'arrived', status: 'arrived', says: 'has arrived', description: 'the patient has arrived' },
  { name: 'completed', status: 'completed', says: 'is completed', description: 'the appointment took place' },
  { name: 'no-show', status: 'no_show', says: 'is a no-show', description: 'the patient did not come' },
] as const;

/**
 * `clinic appointment reschedule|cancel|arrived|completed|no-show REF`: PATCH /appointments/{id}
 * as the desk says it. A reschedule without --end-at keeps the appointment's length and, as
 * booking does at the desk, refuses an overlap unless --allow-overlap.
 */
function registerCorrectionCommands(group: Command, io: CliIo): void {
  const change = (
    command: Command,
    request: (db: Db, id: string, options: CommonOptions & Record<string, unknown>) => RawRequest['body'],
    says: string,
  ) =>
    fieldArgument(command, '<ref>', 'the appointment: its number (A-000017, A-17) or its id', 'appointment_id').action(
      async (reference: string, options: CommonOptions & Record<string, unknown>) => {
        await runUseCaseCommand(io, options, UPDATE_APPOINTMENT, {
          request(db) {
            const id = resolveAppointmentReference(db, reference);
            return { path: { appointment_id: id }, body: request(db, id, options) };
          },
          print: (appointment, db) =>
            `Appointment ${appointment.appointment_number} ${says}.\n\n${formatAppointment(appointment, readDeskContext(db))}`,
        });
      },
    );

  change(
    subcommand(group, 'reschedule', 'move an appointment that is still booked (as PATCH /appointments/{id})')
      .requiredOption('--start-at <time>', 'the new start, e.g. 2026-12-01T10:00 (clinic time)')
      .option('--end-at <time>', 'the new end (default: the same length as before)')
      .option('--allow-overlap', 'move it even if the doctor has another appointment then'),
    (db, id, options) => {
      const startAt = options.startAt as string;
      const endAt = (options.endAt as string | undefined) ?? endKeepingLength(db, id, startAt);
      return {
        start_at: startAt,
        ...(endAt === undefined ? {} : { end_at: endAt }),
        overlap: options.allowOverlap === true ? 'allow' : 'reject',
      };
    },
    'is rescheduled',
  );
  change(
    subcommand(group, 'cancel', 'cancel an appointment (as PATCH /appointments/{id} with status cancelled)').option(
      '--reason <text>',
      'why, at most 500 characters (kept as status_reason)',
    ),
    (_db, _id, options) => ({ status: 'cancelled', ...(typeof options.reason === 'string' ? { status_reason: options.reason } : {}) }),
    'is cancelled',
  );
  for (const { name, status, says, description } of STATUS_COMMANDS) {
    change(subcommand(group, name, `${description} (as PATCH /appointments/{id} with status ${status})`), () => ({ status }), says);
  }
}

/**
 * The end that keeps the appointment's length when it starts at `startText` (clinic time when it
 * has no offset); undefined when the start is no date-time, which the use case then refuses.
 */
function endKeepingLength(db: Db, id: string, startText: string): string | undefined {
  const appointment = findAppointment(db, id.toLowerCase());
  const start = parseDateTime(startText);
  if (appointment === undefined || typeof start === 'string') return undefined;
  const lengthMs = Date.parse(appointment.end_at) - Date.parse(appointment.start_at);
  return new Date(Date.parse(toUtcIso(start, clinicTimeZone(db))) + lengthMs).toISOString();
}

/** `clinic book-appointment` (as POST /appointments, booked as `cli`) and the desk's `clinic appointment list|show|…`. */
export function registerAppointmentCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'book-appointment', 'book an appointment (same fields and rules as POST /appointments)').option(
    '--allow-overlap',
    'book even if the doctor has another booked or arrived appointment at that time (refused by default: APPOINTMENT_OVERLAP)',
  );
  // The field's description is the API's, which takes ids only; the command line also takes the number.
  addFieldOptions(command, BOOKING_OPTION_FIELDS, {
    descriptions: { patient_id: 'the patient: its number (P-000042, P-42) or its id' },
  });
  command.action(async (options: CommonOptions & { allowOverlap?: boolean } & Record<string, unknown>) => {
    await runUseCaseCommand(io, options, BOOK_APPOINTMENT, {
      request(db) {
        const body = readFieldOptions(options, BOOKING_OPTION_FIELDS);
        if (typeof body.patient_id === 'string') body.patient_id = resolvePatientReference(db, body.patient_id);
        // The desk refuses an overlap unless told otherwise (clinic-api-1.2.md); the API allows it by default.
        return { body: { ...body, overlap: options.allowOverlap === true ? 'allow' : 'reject' } };
      },
      // For people: the printout of `appointment show`, so the booking reads as it will be found again.
      print: (appointment, db) => formatAppointment(appointment, readDeskContext(db)),
    });
  });

  const group = program.command('appointment').description('the day sheet, single appointments and their corrections');
  registerCorrectionCommands(group, io);
  subcommand(group, 'list', 'the day sheet: every appointment of a clinic day, in time order (as GET /appointments)')
    .option('--date <day>', 'the clinic day: today or a date like 2026-11-23 (default: today)')
    .option('--doctor <doctor>', "only this doctor's appointments: the name (any case, or a part of it) or the id")
    .action(async (options: CommonOptions & { date?: string; doctor?: string }) => {
      await withDatabase(options, (db) => {
        const sheet = readDaySheet(db, {
          ...(options.date === undefined ? {} : { date: options.date }),
          ...(options.doctor === undefined ? {} : { doctor: options.doctor }),
        });
        emit(io, options, sheet.appointments, () => formatDaySheet(sheet));
      });
    });
  fieldArgument(
    subcommand(group, 'show', 'one appointment (as GET /appointments/{appointment_id})'),
    '<ref>',
    'the appointment: its number (A-000017, A-17) or its id',
    'appointment_id',
  ).action(async (reference: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, READ_APPOINTMENT, {
      request: (db) => ({ path: { appointment_id: resolveAppointmentReference(db, reference) } }),
      print: (appointment, db) => formatAppointment(appointment, readDeskContext(db)),
    });
  });
}

import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { CONFIRM_APPOINTMENT } from '../../domain/appointments/confirm-appointment.js';
import type { Command } from 'commander';
import { BOOK_APPOINTMENT_AT_DESK } from '../../domain/appointments/book-appointment.js';
import { READ_APPOINTMENT } from '../../domain/appointments/list-appointments.js';
import { RESCHEDULE_APPOINTMENT, UPDATE_APPOINTMENT } from '../../domain/appointments/update-appointment.js';
import type { Db } from '../../db/open-database.js';
import type { RawRequest, UseCase, UseCaseInput } from '../../domain/use-case.js';
import type { Appointment } from '../../domain/appointments/present-appointment.js';
import type { DeskContext } from '../../domain/desk/desk-context.js';
import { DAY_SHEET, type DaySheet } from '../../domain/desk/day-sheet.js';
import { SET_APPOINTMENT_STATUS_AT_DESK } from '../../domain/desk/desk-rules.js';
import { resolveAppointmentReference, resolvePatientReference } from '../../domain/references.js';
import { APPOINTMENT_PATCH_FIELDS, DESK_BOOKING_FIELDS, RESCHEDULE_FIELDS } from '../../fields/appointment-fields.js';
import { fieldNamed } from '../../fields/field-spec.js';
import {
  calendarDay,
  deskRecord,
  deskTable,
  heading,
  localDateTime,
  localDay,
  patientLabel,
  statusText,
  timeSpan,
} from '../desk-format.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import { findDoctorByReference, findServiceByReference } from '../../domain/desk/find-by-name.js';
import { collect, DESK_DATE_FORMS, DESK_DATE_TIME_FORMS } from '../desk-input.js';
import { readDeskContext } from '../../domain/desk/desk-context.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
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
      statusText(appointment.status),
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
      ['Status', statusText(appointment.status)],
      // Why it was cancelled (or its status otherwise changed), as `appointment cancel --reason` gave it.
      ['Reason', appointment.status_reason],
      ['Confirmed', statusText(appointment.confirmation_state)],
      ['Notes', appointment.notes],
      ['Booked', `${localDateTime(appointment.created_at, timeZone)} (${appointment.booking_source})`],
    ])
  );
}

/** The booking's fields as options: all but `overlap`, which the desk sets from --allow-overlap. */
const BOOKING_OPTION_FIELDS = DESK_BOOKING_FIELDS.filter((spec) => spec.name !== 'overlap');

/** A reschedule's times as options; `overlap` comes from --allow-overlap. */
const RESCHEDULE_OPTION_FIELDS = RESCHEDULE_FIELDS.filter((spec) => spec.name !== 'overlap');

/** Why a cancellation was made, typed as `--reason`. */
const CANCEL_OPTION_FIELDS = [fieldNamed(APPOINTMENT_PATCH_FIELDS, 'status_reason')] as const;
const CANCEL_OPTION_NAMES = { status_reason: 'reason' } as const;

/** The desk refuses an overlap unless told otherwise (clinic-api-1.2.md); the API allows it by default. */
const overlapOf = (options: Record<string, unknown>) => (options.allowOverlap === true ? 'allow' : 'reject');

/** The status each desk word sets, and what the printout then says. */
const STATUS_COMMANDS = [
  { name: 'arrived', status: 'arrived', says: 'has arrived', description: 'the patient has arrived' },
  { name: 'completed', status: 'completed', says: 'is completed', description: 'the appointment took place' },
  { name: 'no-show', status: 'no_show', says: 'is a no-show', description: 'the patient did not come' },
] as const;

/**
 * `clinic appointment reschedule|cancel|arrived|completed|no-show REF`: PATCH /appointments/{id}
 * as the desk says it. A reschedule without --end-at keeps the appointment's length
 * (RESCHEDULE_APPOINTMENT) and, as booking does at the desk, refuses an overlap unless
 * --allow-overlap.
 */
function registerCorrectionCommands(group: Command, io: CliIo): void {
  const change = <I extends UseCaseInput, P extends boolean>(
    command: Command,
    useCase: UseCase<I, { appointment: Appointment }, P>,
    request: (db: Db, options: CommonOptions & Record<string, unknown>) => RawRequest['body'],
    says: string,
  ) =>
    fieldArgument(command, '<ref>', 'the appointment: its number (A-000017, A-17) or its id', 'appointment_id').action(
      async (reference: string, options: CommonOptions & Record<string, unknown>) => {
        await runUseCaseCommand(io, options, useCase, {
          request: (db) => ({ path: { appointment_id: resolveAppointmentReference(db, reference) }, body: request(db, options) }),
          json: ({ appointment }) => appointment,
          print: ({ appointment }, db) =>
            `Appointment ${appointment.appointment_number} ${says}.\n\n${formatAppointment(appointment, readDeskContext(db))}`,
        });
      },
    );

  change(
    addFieldOptions(
      subcommand(group, 'reschedule', 'move an appointment that is still booked (as PATCH /appointments/{id})'),
      RESCHEDULE_OPTION_FIELDS,
      {
        descriptions: {
          start_at: `the new start, clinic time: ${DESK_DATE_TIME_FORMS}`,
          end_at: 'the new end, written as --start-at (default: the same length as before)',
        },
      },
    ).option('--allow-overlap', 'move it even if the doctor has another appointment then'),
    RESCHEDULE_APPOINTMENT,
    (db, options) => ({ ...readFieldOptions(options, RESCHEDULE_OPTION_FIELDS, db), overlap: overlapOf(options) }),
    'is rescheduled',
  );
  change(
    addFieldOptions(
      subcommand(group, 'cancel', 'cancel an appointment (as PATCH /appointments/{id} with status cancelled)'),
      CANCEL_OPTION_FIELDS,
      { names: CANCEL_OPTION_NAMES },
    ),
    UPDATE_APPOINTMENT,
    (db, options) => ({ status: 'cancelled', ...readFieldOptions(options, CANCEL_OPTION_FIELDS, db, { names: CANCEL_OPTION_NAMES }) }),
    'is cancelled',
  );
  change(
    subcommand(group, 'confirm', 'record that the patient confirmed (as POST /appointments/{id}/confirm)'),
    CONFIRM_APPOINTMENT,
    () => undefined,
    'is confirmed by the patient',
  );
  // Each refused before the appointment's time unless --force (desk-rules.ts: APPOINTMENT_NOT_STARTED).
  for (const { name, status, says, description } of STATUS_COMMANDS) {
    change(
      subcommand(group, name, `${description} (as PATCH /appointments/{id} with status ${status})`).option(
        '--force',
        'set it although the appointment has not started yet (refused by default: APPOINTMENT_NOT_STARTED)',
      ),
      SET_APPOINTMENT_STATUS_AT_DESK,
      (_db, options) => ({ status, before_start: options.force === true ? 'allow' : 'reject' }),
      says,
    );
  }
}

/** The options that name a doctor or services by name or id, and what each fills. */
interface BookingNames {
  doctor?: string;
  service?: string[];
}

/**
 * The doctor and services of a booking as the desk names them (`--doctor berger`, `--service
 * Kontrolle`, also by id; `--resource-id`/`--service-id` too), as the API's ids. Two options for
 * one field are a usage error, so a booking never goes to a doctor the person did not mean.
 */
function withBookingNames(db: Db, body: Record<string, unknown>, names: BookingNames, usage: (message: string) => never) {
  if (names.doctor !== undefined && body.resource_id !== undefined) usage('error: give the doctor once: --doctor or --resource-id');
  const doctor = names.doctor ?? body.resource_id;
  if (typeof doctor === 'string') body.resource_id = findDoctorByReference(db, doctor).id;
  const named = names.service ?? [];
  if (named.length > 0 && (body.service_id !== undefined || body.service_ids !== undefined))
    usage('error: give the services once: --service, or --service-id/--service-ids');
  const listed = Array.isArray(body.service_ids) && body.service_ids.every((item) => typeof item === 'string');
  const references =
    named.length > 0 ? named : typeof body.service_id === 'string' ? [body.service_id] : listed ? (body.service_ids as string[]) : [];
  const services = references.map((reference) => findServiceByReference(db, reference));
  if (named.length > 1 || listed) body.service_ids = services.map((service) => service.id);
  else if (services.length === 1) body.service_id = services[0]!.id;
  return body;
}

/** `clinic book-appointment` (as POST /appointments, booked as `cli`) and the desk's `clinic appointment list|show|…`. */
export function registerAppointmentCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'book-appointment', 'book an appointment (same fields and rules as POST /appointments)')
    .option('--doctor <name>', 'the doctor: the name (any case, or a part of it) or the id; the same as --resource-id')
    .option('--service <name>', 'a service: the name (any case, or a part of it) or the id; repeat it for several', collect)
    .option(
      '--allow-overlap',
      'book even if the doctor has another booked or arrived appointment at that time (refused by default: APPOINTMENT_OVERLAP)',
    );
  // The fields' descriptions are the API's, which takes ids only; the command line also takes numbers and names.
  addFieldOptions(command, BOOKING_OPTION_FIELDS, {
    descriptions: {
      patient_id: 'the patient: its number (P-000042, P-42) or its id',
      start_at: `the start, clinic time: ${DESK_DATE_TIME_FORMS}`,
      end_at: "the end, written as --start-at (default: the start plus the services' lengths)",
      resource_id: 'the doctor: the name or the id, as --doctor',
      service_id: 'the service: the name or the id, as --service',
    },
  });
  addFieldOptions(command, IDEMPOTENCY_HEADER_FIELDS);
  command.action(
    async (options: CommonOptions & BookingNames & { allowOverlap?: boolean } & Record<string, unknown>, actionCommand: Command) => {
      const usage = (message: string): never => actionCommand.error(message, { exitCode: 2 });
      await runUseCaseCommand(io, options, BOOK_APPOINTMENT_AT_DESK, {
        request(db) {
          const body = withBookingNames(db, readFieldOptions(options, BOOKING_OPTION_FIELDS, db), options, usage);
          if (typeof body.patient_id === 'string') body.patient_id = resolvePatientReference(db, body.patient_id);
          return { header: readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db), body: { ...body, overlap: overlapOf(options) } };
        },
        // For people: the printout of `appointment show`, so the booking reads as it will be found again.
        print: (appointment, db) => formatAppointment(appointment, readDeskContext(db)),
      });
    },
  );

  const group = program.command('appointment').description('the day sheet, single appointments and their corrections');
  registerCorrectionCommands(group, io);
  subcommand(group, 'list', 'the day sheet: every appointment of a clinic day, in time order (as GET /appointments)')
    .option('--date <day>', `the clinic day: ${DESK_DATE_FORMS} (default: today)`)
    .option('--doctor <doctor>', "only this doctor's appointments: the name (any case, or a part of it) or the id")
    .action(async (options: CommonOptions & { date?: string; doctor?: string }) => {
      await runUseCaseCommand(io, options, DAY_SHEET, {
        request: () => ({ query: { date: options.date, doctor: options.doctor } }),
        json: (sheet) => sheet.appointments,
        print: (sheet) => formatDaySheet(sheet),
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

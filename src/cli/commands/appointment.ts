import type { Command } from 'commander';
import { BOOK_APPOINTMENT } from '../../domain/appointments/book-appointment.js';
import { READ_APPOINTMENT } from '../../domain/appointments/list-appointments.js';
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

/** `clinic book-appointment` (as POST /appointments, booked as `cli`) and the desk's `clinic appointment list|show`. */
export function registerAppointmentCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'book-appointment', 'book an appointment (same fields and rules as POST /appointments)');
  // The field's description is the API's, which takes ids only; the command line also takes the number.
  addFieldOptions(command, APPOINTMENT_INPUT_FIELDS, {
    descriptions: { patient_id: 'the patient: its number (P-000042, P-42) or its id' },
  });
  command.action(async (options: CommonOptions & Record<string, unknown>) => {
    await runUseCaseCommand(io, options, BOOK_APPOINTMENT, {
      request(db) {
        const body = readFieldOptions(options, APPOINTMENT_INPUT_FIELDS);
        if (typeof body.patient_id === 'string') body.patient_id = resolvePatientReference(db, body.patient_id);
        return { body };
      },
      // For people: the printout of `appointment show`, so the booking reads as it will be found again.
      print: (appointment, db) => formatAppointment(appointment, readDeskContext(db)),
    });
  });

  const group = program.command('appointment').description('the day sheet and single appointments');
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

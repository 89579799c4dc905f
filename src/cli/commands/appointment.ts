import type { Command } from 'commander';
import { bookAppointment } from '../../domain/appointments/book-appointment.js';
import { resolvePatientReference } from '../../domain/references.js';
import { APPOINTMENT_INPUT_FIELDS } from '../../fields/appointment-fields.js';
import { withDatabase } from '../database.js';
import { addFieldOptions, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import { emit, formatRecord, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** `clinic book-appointment`: the same fields and rules as POST /appointments, booked as `cli`. */
export function registerAppointmentCommands(program: Command, io: CliIo): void {
  const command = subcommand(program, 'book-appointment', 'book an appointment (same fields and rules as POST /appointments)');
  addFieldOptions(command, APPOINTMENT_INPUT_FIELDS).action(async (options: CommonOptions & Record<string, unknown>) => {
    const body = readFieldOptions(options, APPOINTMENT_INPUT_FIELDS);
    await withDatabase(options, (db) => {
      if (typeof body.patient_id === 'string') body.patient_id = resolvePatientReference(db, body.patient_id);
      const appointment = bookAppointment(db, body, 'cli');
      emit(io, options, appointment, () =>
        formatRecord({
          id: appointment.id,
          appointment_number: appointment.appointment_number,
          patient: `${appointment.patient_number} ${appointment.patient_first_name} ${appointment.patient_last_name}`,
          start_at: appointment.start_at,
          end_at: appointment.end_at,
          status: appointment.status,
          service_name: appointment.service_name,
          confirmation_state: appointment.confirmation_state,
        }),
      );
    });
  });
}

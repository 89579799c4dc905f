import { bookAppointment } from '../../domain/appointments/book-appointment.js';
import { errors } from '../../domain/errors.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/** POST /appointments. */
export const appointmentOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/appointments',
    operationId: 'bookAppointment',
    summary: 'Book an appointment for an existing patient',
    description: 'A date-time without an offset is clinic local time; responses give UTC. `end_at` must be after `start_at`.',
    tag: 'appointments',
    scope: 'appointments:write',
    body: { kind: 'json', model: 'AppointmentInput', example: examples.appointmentInputExample },
    refusals: [errors.patientNotFound(422), errors.doctorNotFound(), errors.serviceNotFound()],
    result: {
      kind: 'model',
      status: 201,
      model: 'Appointment',
      description: 'The appointment was booked',
      example: examples.appointmentExample,
    },
    handler:
      ({ db }) =>
      (ctx) =>
        bookAppointment(db, ctx.state.body, 'api'),
  },
];

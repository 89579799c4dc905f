import { bookAppointment } from '../../domain/appointments/book-appointment.js';
import { APPOINTMENT_LIST_QUERY_FIELDS, listAppointments, readAppointment } from '../../domain/appointments/list-appointments.js';
import { errors } from '../../domain/errors.js';
import { APPOINTMENT_PATH_FIELDS } from '../../fields/appointment-fields.js';
import * as examples from '../openapi/examples.js';
import type { Operation } from '../operation.js';

/** POST /appointments; GET /appointments and GET /appointments/{appointment_id} (1.1.0). */
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
  {
    method: 'get',
    path: '/appointments',
    operationId: 'listAppointments',
    summary: 'List the appointments of a window of time (the day sheet)',
    description:
      'Appointments that overlap [from, to): start before `to` and end after `from`. Without parameters, today in clinic time. Ordered by start, then appointment number. An unknown `resource_id` or `patient_id` matches nothing.',
    tag: 'appointments',
    scope: 'appointments:read',
    queryFields: APPOINTMENT_LIST_QUERY_FIELDS,
    result: {
      kind: 'model',
      status: 200,
      model: 'Appointment',
      paged: true,
      description: 'One page of the appointments in the window',
      example: examples.appointmentListExample,
    },
    handler:
      ({ db }) =>
      (ctx) =>
        listAppointments(db, ctx.query),
  },
  {
    method: 'get',
    path: '/appointments/{appointment_id}',
    operationId: 'getAppointment',
    summary: 'Read an appointment',
    tag: 'appointments',
    scope: 'appointments:read',
    pathFields: APPOINTMENT_PATH_FIELDS,
    refusals: [errors.appointmentNotFound()],
    result: { kind: 'model', status: 200, model: 'Appointment', description: 'The appointment', example: examples.appointmentExample },
    handler:
      ({ db }) =>
      (ctx) =>
        readAppointment(db, ctx.params.appointment_id),
  },
];

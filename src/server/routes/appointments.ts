import { BOOK_APPOINTMENT } from '../../domain/appointments/book-appointment.js';
import { LIST_APPOINTMENTS, READ_APPOINTMENT } from '../../domain/appointments/list-appointments.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../operation.js';

/** POST /appointments; GET /appointments and GET /appointments/{appointment_id} (1.1.0). */
export const appointmentOperations: readonly Operation[] = [
  useCaseOperation(BOOK_APPOINTMENT, {
    method: 'post',
    path: '/appointments',
    operationId: 'bookAppointment',
    description: 'A date-time without an offset is clinic local time; responses give UTC. `end_at` must be after `start_at`.',
    tag: 'appointments',
    scope: 'appointments:write',
    bodyExample: examples.appointmentInputExample,
    result: {
      kind: 'model',
      status: 201,
      model: 'Appointment',
      description: 'The appointment was booked',
      example: examples.appointmentExample,
    },
  }),
  useCaseOperation(LIST_APPOINTMENTS, {
    method: 'get',
    path: '/appointments',
    operationId: 'listAppointments',
    description:
      'Appointments that overlap [from, to): start before `to` and end after `from`. Without parameters, today in clinic time. Ordered by start, then appointment number. An unknown `resource_id` or `patient_id` matches nothing.',
    tag: 'appointments',
    scope: 'appointments:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Appointment',
      paged: true,
      description: 'One page of the appointments in the window',
      example: examples.appointmentListExample,
    },
  }),
  useCaseOperation(READ_APPOINTMENT, {
    method: 'get',
    path: '/appointments/{appointment_id}',
    operationId: 'getAppointment',
    tag: 'appointments',
    scope: 'appointments:read',
    result: { kind: 'model', status: 200, model: 'Appointment', description: 'The appointment', example: examples.appointmentExample },
  }),
];

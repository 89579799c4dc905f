import { BOOK_APPOINTMENT } from '../../domain/appointments/book-appointment.js';
import { LIST_APPOINTMENTS, READ_APPOINTMENT } from '../../domain/appointments/list-appointments.js';
import { UPDATE_APPOINTMENT } from '../../domain/appointments/update-appointment.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/** POST /appointments; GET /appointments and GET /appointments/{appointment_id} (1.1.0); PATCH /appointments/{appointment_id} (1.2.0). */
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
  useCaseOperation(UPDATE_APPOINTMENT, {
    method: 'patch',
    path: '/appointments/{appointment_id}',
    operationId: 'updateAppointment',
    description:
      'A JSON merge patch. `status` moves as the status table allows (booked → arrived, no_show, cancelled; arrived → completed, ' +
      'cancelled; no_show → arrived); another move is 409. New times are a reschedule, allowed only while the appointment is ' +
      'booked: it keeps the old times in `reschedule_from_*` and asks the patient to confirm again. With `overlap: reject`, an ' +
      'appointment that ends up booked or arrived must not intersect another of its doctor (409 `APPOINTMENT_OVERLAP`).',
    tag: 'appointments',
    scope: 'appointments:write',
    bodyExample: examples.appointmentPatchExample,
    result: {
      kind: 'model',
      status: 200,
      model: 'Appointment',
      description: 'The appointment as it now stands',
      example: examples.appointmentExample,
    },
    answer: (_ctx, { appointment }) => appointment,
  }),
];

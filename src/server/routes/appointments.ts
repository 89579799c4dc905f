import { BOOK_APPOINTMENT } from '../../domain/appointments/book-appointment.js';
import { LIST_APPOINTMENTS, READ_APPOINTMENT } from '../../domain/appointments/list-appointments.js';
import { UPDATE_APPOINTMENT } from '../../domain/appointments/update-appointment.js';
import { CONFIRM_APPOINTMENT } from '../../domain/appointments/confirm-appointment.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/** POST /appointments; GET /appointments and GET /appointments/{appointment_id} (1.1.0); PATCH /appointments/{appointment_id} (1.2.0); POST /appointments/{appointment_id}/confirm (1.3.0). */
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
  useCaseOperation(CONFIRM_APPOINTMENT, {
    method: 'post',
    path: '/appointments/{appointment_id}/confirm',
    operationId: 'confirmAppointment',
    description:
      'The patient confirmed the appointment otherwise than by replying to a reminder (on the phone, in an app): `patient_confirmed_at` ' +
      'is set and a decline cleared, recorded as `appointment.confirm` and `appointment.confirmed` with `via` `api`. No body. ' +
      'Confirming a confirmed appointment changes and records nothing. Only an appointment that is booked (or a 1.0.0 free status) ' +
      'takes it: else 409 `APPOINTMENT_TRANSITION_INVALID`.',
    tag: 'appointments',
    scope: 'appointments:write',
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

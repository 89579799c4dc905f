// The change feed's shapes as the tests read them, written from clinic-api-1.2.md ("Change feed")
// rather than imported from the program, so that a change of the program's types cannot make
// the tests agree with it.

/** An event as GET /events and a webhook's body give it. */
export interface ChangeEvent {
  id: string;
  seq: number;
  type: string;
  occurred_at: string;
  patient_id: string | null;
  data: Record<string, unknown>;
}

/** An endpoint as `clinic webhook add --json` prints it: the only time its secret is shown. */
export interface AddedWebhook {
  id: string;
  name: string;
  url: string;
  types: string[];
  state: string;
  secret: string;
}

/** An endpoint as `clinic webhook list --json` shows it. */
export interface ListedWebhook {
  id: string;
  name: string;
  url: string;
  types: string[];
  state: 'enabled' | 'disabled';
  last_delivered_seq: number | null;
  lag: number;
  last_error: string | null;
}

/**
 * What `restore --json` says of the feed (change_feed_lost) when a backup whose last event was
 * `restartAfter` is restored without the directory it replaces: a margin of 1,000,000 positions
 * after it is marked lost, so that no new event takes a number the lost ones may have had.
 */
export function lostMargin(restartAfter: number) {
  return {
    first_seq: restartAfter + 1,
    last_seq: restartAfter + 1_000_000,
    bound: 'margin',
    restart_after: restartAfter,
    unreadable: null,
  };
}

/** An appointment as an event's data names it (from the Appointment the use case answered). */
interface AppointmentOfEvent {
  id: string;
  appointment_number: string;
  start_at: string;
  end_at: string;
  status: string;
  resource_id: string | null;
}

/** The data of an appointment.created or appointment.updated event: the appointment's id, number, times, status and doctor. */
export function appointmentEventData(appointment: AppointmentOfEvent) {
  return {
    appointment_id: appointment.id,
    appointment_number: appointment.appointment_number,
    start_at: appointment.start_at,
    end_at: appointment.end_at,
    status: appointment.status,
    resource_id: appointment.resource_id,
  };
}

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

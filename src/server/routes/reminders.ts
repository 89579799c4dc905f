import { LIST_REMINDERS } from '../../domain/reminders/list-reminders.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/** GET /reminders (1.3.0). */
export const reminderOperations: readonly Operation[] = [
  useCaseOperation(LIST_REMINDERS, {
    method: 'get',
    path: '/reminders',
    operationId: 'listReminders',
    description:
      'The reminders planned and sent, by `due_at`, then id: of one clinic day (`date`), in some states, of a patient or of an appointment. ' +
      'Each patient shown is recorded in the audit trail (`reminder.read`).',
    tag: 'reminders',
    scope: 'reminders:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'Reminder',
      paged: true,
      description: 'One page of the reminders',
      example: examples.reminderListExample,
    },
  }),
];

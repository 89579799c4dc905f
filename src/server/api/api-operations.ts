import type { Operation } from './operation.js';
import { appointmentOperations } from '../routes/appointments.js';
import { auditOperations } from '../routes/audit.js';
import { eventOperations } from '../routes/events.js';
import { healthOperations } from '../routes/health.js';
import { documentOperations } from '../routes/documents.js';
import { invoiceOperations } from '../routes/invoices.js';
import { lookupOperations } from '../routes/lookups.js';
import { openApiOperations } from '../routes/openapi.js';
import { patientOperations } from '../routes/patients.js';
import { paymentOperations } from '../routes/payments.js';
import { sessionOperations } from '../routes/sessions.js';
import { deskOperations } from '../routes/desk.js';
import { reminderOperations } from '../routes/reminders.js';

/**
 * Every operation the server answers, in the order of the specification: the routes are mounted
 * from this list and the interface description is built from it.
 */
export const OPERATIONS: readonly Operation[] = [
  ...lookupOperations,
  ...invoiceOperations,
  ...paymentOperations,
  ...patientOperations,
  ...appointmentOperations,
  ...reminderOperations,
  ...documentOperations,
  ...auditOperations,
  ...eventOperations,
  ...sessionOperations,
  ...deskOperations,
  ...healthOperations,
  ...openApiOperations,
];

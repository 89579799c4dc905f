import { LIST_AUDIT_EVENTS } from '../../domain/audit/list-audit-events.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/** GET /audit-events (1.2.0). */
export const auditOperations: readonly Operation[] = [
  useCaseOperation(LIST_AUDIT_EVENTS, {
    method: 'get',
    path: '/audit-events',
    operationId: 'listAuditEvents',
    description:
      'Ordered by `seq`. Each event names one patient whose data an answer showed or changed (a list or search: one per patient on its page), ' +
      'who asked and from where; `hash` chains it to the event before. Reading the trail records nothing.',
    tag: 'audit',
    scope: 'audit:read',
    result: {
      kind: 'model',
      status: 200,
      model: 'AuditEvent',
      paged: true,
      description: 'The matching events',
      example: examples.auditEventListExample,
    },
  }),
];

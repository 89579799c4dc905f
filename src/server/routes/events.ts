import { LIST_CHANGE_EVENTS } from '../../domain/changes/list-change-events.js';
import * as examples from '../openapi/examples.js';
import { useCaseOperation, type Operation } from '../api/operation.js';

/** GET /events (1.2.0): the change feed. */
export const eventOperations: readonly Operation[] = [
  useCaseOperation(LIST_CHANGE_EVENTS, {
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    description:
      'Every committed change, in commit order (`seq`, without gaps): a consumer that keeps the last `seq` it handled and asks ' +
      'with `after` never misses or repeats an event. With `wait`, an empty answer is held until an event is committed ' +
      '(by this server or by a desk command beside it) or the time is up. The same events are pushed, signed, to the ' +
      'webhooks IT adds with `clinic webhook add`. Reading the feed records nothing in the audit trail.',
    tag: 'events',
    scope: 'events:read',
    holdWhileEmpty: { seconds: ({ query }) => query.wait ?? 0, empty: (page) => page.items.length === 0 },
    result: {
      kind: 'model',
      status: 200,
      model: 'ChangeEvent',
      paged: true,
      description: 'The events after `after`, at most `limit`; none when `wait` ran out first',
      example: examples.changeEventListExample,
    },
  }),
];

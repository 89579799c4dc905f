// src/domain/changes/list-change-events.ts: GET /events (clinic-api-1.2.md, "Change feed"; issue 39, M4).
import type { Db } from '../../../src/db/open-database.js';
import { markFeedRestored } from '../../../src/domain/changes/feed-after-restore.js';
import { LIST_CHANGE_EVENTS } from '../../../src/domain/changes/list-change-events.js';
import { createTestInvoice, createTestPatient } from '../../helpers/builders.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * LIST_CHANGE_EVENTS (GET /events; clinic-api-1.2.md, "Change feed"): the feed after a seq, of
 * some types, a page at a time, and a position a restore left behind (issue 39, M4). Waiting
 * (`wait`), the Link header and the scope: test/server/routes/events.test.ts.
 */

interface Given {
  patientId: string;
  invoiceId: string;
}

/** An invoice for a new patient: the feed's patient.created (seq 1) and invoice.created (seq 2). */
function anInvoicedPatient(db: Db): Given {
  const invoice = createTestInvoice(db, { total: '85.50' });
  return { patientId: invoice.patient_id, invoiceId: invoice.id };
}

/**
 * The feed of anInvoicedPatient restored from a backup, the database it replaced having handed out
 * seq 3 to 5: those are lost, and the next patient's event is seq 6.
 */
function aRestoredFeed(db: Db): Given {
  const given = anInvoicedPatient(db);
  db.transaction(() => markFeedRestored(db, { highestSeq: 5 }, '2026-11-29T18:00:00.000Z', '2026-11-30T08:00:00.000Z'))();
  createTestPatient(db, { first_name: 'Grace', last_name: 'Hopper' });
  return given;
}

/** A page of events of these seqs, and what follows it; reading the feed records nothing. */
const page =
  (seqs: number[], next: string | null = null) =>
  () => ({
    result: { items: seqs.map((seq) => ({ seq, id: `evt_${seq}` })), next },
    audit: [],
    changes: [],
  });

const listed = (title: string, query: Record<string, string>, seqs: number[], next: string | null = null): Scenario<Given> => ({
  title,
  given: anInvoicedPatient,
  request: () => ({ query }),
  expect: page(seqs, next),
});

const invalid = (title: string, query: Record<string, string>, type: string): Scenario<Given> => ({
  title,
  given: anInvoicedPatient,
  request: () => ({ query }),
  expect: () => ({ invalid: [`query.${Object.keys(query)[0]}`], types: [type] }),
});

const scenarios: Scenario<Given>[] = [
  {
    title: 'gives the feed from its first event, thin: ids and what an integration needs, and records nothing',
    given: anInvoicedPatient,
    request: () => ({ query: {} }),
    expect: (given) => ({
      result: {
        items: [
          { id: 'evt_1', seq: 1, type: 'patient.created', patient_id: given.patientId, data: { patient_number: /^P-\d{6}$/ } },
          {
            id: 'evt_2',
            seq: 2,
            type: 'invoice.created',
            occurred_at: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
            patient_id: given.patientId,
            data: { invoice_id: given.invoiceId, total: 85.5, status: 'issued' },
          },
        ],
        next: null,
      },
      audit: [],
      changes: [],
    }),
  },
  listed('gives the events after the last seq a consumer handled', { after: '1' }, [2]),
  listed('gives nothing after the last event', { after: '2' }, []),
  listed('gives only the types named', { types: 'invoice.created,refund.created' }, [2]),
  listed('cuts a page at limit, the next starting after its last seq', { limit: '1' }, [1], '1'),
  listed('says no next page when exactly limit events are left', { limit: '2' }, [1, 2]),
  invalid('refuses a type the feed never has (a consumer would wait for ever)', { types: 'invoice.creatd' }, 'value_error'),
  invalid('refuses a list naming no type, rather than read it as every type', { types: ',' }, 'value_error'),
  invalid('refuses an empty types', { types: '' }, 'string_too_short'),
  invalid('refuses a page of 1001', { limit: '1001' }, 'less_than_equal'),
  invalid('refuses a wait of 31 seconds', { wait: '31' }, 'less_than_equal'),
  {
    title: 'refuses a position a restore left behind (409 FEED_POSITION_LOST), saying where to start again',
    given: aRestoredFeed,
    request: () => ({ query: { after: '4' } }),
    expect: () => ({ refused: 'FEED_POSITION_LOST', status: 409, message: /Start again with after=2\./ }),
  },
  {
    title: 'refuses the last lost position too',
    given: aRestoredFeed,
    request: () => ({ query: { after: '5' } }),
    expect: () => ({ refused: 'FEED_POSITION_LOST', status: 409 }),
  },
  {
    title: 'answers the position before the lost ones with the events after them',
    given: aRestoredFeed,
    request: () => ({ query: { after: '2' } }),
    expect: page([6]),
  },
  {
    title: 'refuses a person who is no admin (403 ROLE_FORBIDDEN)',
    given: anInvoicedPatient,
    request: () => ({ query: {} }),
    caller: { ...DESK_USER, roles: ['reception', 'billing'] },
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describeScenarios('reading the change feed (LIST_CHANGE_EVENTS)', LIST_CHANGE_EVENTS, scenarios);

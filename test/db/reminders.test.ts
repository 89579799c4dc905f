import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BEFORE_FIRST_REMINDER, findDueReminder, listReminderRows, type ReminderFilter } from '../../src/db/reminders.js';
import { BOOK_APPOINTMENT } from '../../src/domain/appointments/book-appointment.js';
import { SET_CLINIC_NAME } from '../../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../../src/domain/reminders/set-reminders.js';
import { performUseCase, type AnyUseCase } from '../../src/domain/use-case.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { explainDueReminder, explainReminderList } from '../../src/db/reminders.js';

const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
const everyReminder: ReminderFilter = { from: null, to: null, states: null, patientId: null, appointmentId: null };

/**
 * The reminders' list and the sender's pick read reminders_by_state_due (state, due_at): one range
 * per state merged, the id ordering the reminders due at the same instant (issue 46). Reminders
 * due together are common: the same start and rule for two patients, or quiet hours moving many
 * to 19:59.
 */
describe('reminders due at the same instant, across states', () => {
  const data = useTestDatabase();
  const run = (useCase: AnyUseCase, body: object) => performUseCase(useCase as never, data.db, { body }, desk);
  const order = (rows: { due_at: string; id: string }[]) => rows.map((row) => `${row.due_at} ${row.id}`);

  before(() => {
    run(SET_CLINIC_NAME, { name: 'Praxis' });
    run(SET_REMINDERS, { before: ['1d', '2h'], quiet_hours: 'off' });
    // Four patients at the same start without a doctor: four reminders due at each of two instants.
    for (let i = 0; i < 4; i++) {
      const patient = createTestPatient(data.db, { first_name: `P${i}` });
      run(BOOK_APPOINTMENT, { patient_id: patient.id, start_at: '2030-03-05T09:00:00Z', end_at: '2030-03-05T09:30:00Z' });
    }
    // Two of them in other states, so every instant spans three ranges of the index.
    data.db.exec(`UPDATE reminders SET state = 'sent' WHERE seq IN (1, 4)`);
    data.db.exec(`UPDATE reminders SET state = 'withdrawn', reason = 'cancelled' WHERE seq IN (5, 8)`);
  });

  it('lists them in (due_at, id) order, the states interleaved', () => {
    const rows = listReminderRows(data.db, everyReminder, BEFORE_FIRST_REMINDER, 100);
    assert.equal(rows.length, 8);
    assert.deepEqual(order(rows), [...order(rows)].sort());
    assert.deepEqual(new Set(rows.map((row) => row.due_at)), new Set(['2030-03-04T09:00:00.000Z', '2030-03-05T07:00:00.000Z']));
    assert.notDeepEqual(
      rows.map((row) => row.state),
      [...rows.map((row) => row.state)].sort(),
    );
  });

  for (const size of [1, 2, 3]) {
    it(`pages through them ${size} at a time, each once, a cursor among reminders due together`, () => {
      const whole = listReminderRows(data.db, everyReminder, BEFORE_FIRST_REMINDER, 100);
      const paged: { due_at: string; id: string }[] = [];
      let after = BEFORE_FIRST_REMINDER;
      for (let pages = 0; pages < 20; pages++) {
        const page = listReminderRows(data.db, everyReminder, after, size);
        paged.push(...page);
        if (page.length < size) break;
        after = { due_at: page.at(-1)!.due_at, id: page.at(-1)!.id };
      }
      assert.deepEqual(order(paged), order(whole));
    });
  }

  it('lists one state and one day from the cursor on', () => {
    const day = { ...everyReminder, from: '2030-03-05T00:00:00.000Z', to: '2030-03-06T00:00:00.000Z', states: '["scheduled"]' };
    const rows = listReminderRows(data.db, day, BEFORE_FIRST_REMINDER, 100);
    assert.deepEqual(
      rows.map((row) => [row.due_at, row.state]),
      [
        ['2030-03-05T07:00:00.000Z', 'scheduled'],
        ['2030-03-05T07:00:00.000Z', 'scheduled'],
      ],
    );
    assert.deepEqual(order(rows), [...order(rows)].sort());
    const rest = listReminderRows(data.db, day, rows[0]!, 100);
    assert.deepEqual(order(rest), order(rows).slice(1));
  });

  it('gives the sender the scheduled one due first, the lowest id among those due with it', () => {
    const scheduled = listReminderRows(data.db, { ...everyReminder, states: '["scheduled"]' }, BEFORE_FIRST_REMINDER, 100);
    const due = findDueReminder(data.db, '2030-03-04T09:00:00.000Z');
    assert.equal(due?.id, scheduled[0]!.id);
    assert.equal(findDueReminder(data.db, '2030-03-04T08:59:59.999Z'), undefined);
  });
});

/**
 * Every list query is read from an index (the quality bar: "an index for every list query"),
 * proved on SQLite's own plan rather than on timings.
 */
describe('the plans of the reminder lists', () => {
  const data = useTestDatabase();

  const everyReminder = { from: null, to: null, states: null, patientId: null, appointmentId: null };

  for (const [what, filter, parts] of [
    ['every reminder', everyReminder, 6],
    [
      "a day's sent and failed reminders",
      { ...everyReminder, from: '2026-12-01T00:00:00.000Z', to: '2026-12-02T00:00:00.000Z', states: '["failed","sent"]' },
      2,
    ],
  ] as const) {
    it(`lists ${what} by (due_at, id) from reminders_by_state_due, one range per state merged, sorting only ties (issue 46)`, () => {
      const plan = explainReminderList(data.db, filter).join('\n');
      const ranges = plan.match(/SEARCH r USING INDEX reminders_by_state_due \(state=\? AND due_at>\? AND due_at<\?\)/g) ?? [];
      assert.equal(ranges.length, parts, plan);
      assert.match(plan, /MERGE \(UNION ALL\)/);
      // Only the reminders due at the same instant are sorted, by id.
      assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|SCAN r\b/);
    });
  }

  it("lists an appointment's reminders through reminders_by_appointment", () => {
    const plan = explainReminderList(data.db, { ...everyReminder, appointmentId: 'appointment' }).join('\n');
    assert.match(plan, /SEARCH r USING INDEX reminders_by_appointment \(appointment_id=\?\)/);
    assert.doesNotMatch(plan, /SCAN r\b/);
  });

  it('finds the reminder due first among the scheduled ones alone, in order, sorting only ties (issue 46)', () => {
    const plan = explainDueReminder(data.db).join('\n');
    assert.match(plan, /SEARCH r USING INDEX reminders_by_state_due \(state=\? AND due_at<\?\)/);
    assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|SCAN r\b/);
  });
});

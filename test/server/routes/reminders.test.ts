import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SET_CLINIC_NAME } from '../../../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../../../src/domain/reminders/set-reminders.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { buildPatient } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import type { ApiResponse } from '../../helpers/test-server.js';

/** GET /reminders (interface 1.3.0): the reminders planned with bookings through the API, listed, filtered, paged and recorded. */
describe('GET /reminders', () => {
  const server = useTestServer();
  const desk = { source: 'cli' as const, actor: { type: 'cli' as const, id: 'it', name: 'it', source: 'pc', requestId: null } };
  const ids = { lena: '', max: '', first: '', second: '' };
  type Listed = { appointment_id: string; patient_id: string; rule: string; due_at: string; state: string; reason: string | null };
  const list = async (query = '') => {
    const response = await server.request('GET', `/reminders${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body as Listed[];
  };

  before(async () => {
    setClinicTimeZone(server.db, 'Europe/Vienna');
    performUseCase(SET_CLINIC_NAME, server.db, { body: { name: 'Ordination Dr. Huber' } }, desk);
    performUseCase(SET_REMINDERS, server.db, { body: { before: ['1d', '2h'], quiet_hours: 'off' } }, desk);
    for (const name of ['lena', 'max'] as const)
      ids[name] = (await server.request('POST', '/patients', { body: buildPatient({ first_name: name }) })).body.id;
    const book = async (patient: string, start: string, end: string) =>
      (await server.request('POST', '/appointments', { body: { patient_id: patient, start_at: start, end_at: end } })).body.id as string;
    ids.first = await book(ids.lena, '2030-03-05T10:00:00', '2030-03-05T10:30:00');
    ids.second = await book(ids.max, '2030-03-04T09:00:00', '2030-03-04T09:30:00');
  });

  it('lists every reminder by when it is due, with the numbers a person reads, all fields present', async () => {
    const all = await list();
    assert.deepEqual(
      all.map((r) => [r.rule, r.due_at, r.state, r.appointment_id === ids.first ? 'first' : 'second']),
      [
        ['1d', '2030-03-03T08:00:00.000Z', 'scheduled', 'second'],
        ['2h', '2030-03-04T06:00:00.000Z', 'scheduled', 'second'],
        ['1d', '2030-03-04T09:00:00.000Z', 'scheduled', 'first'],
        ['2h', '2030-03-05T07:00:00.000Z', 'scheduled', 'first'],
      ],
    );
    const one = (await server.request('GET', `/reminders?appointment_id=${ids.first}`)).body[0];
    assert.match(one.appointment_number, /^A-\d{6}$/);
    assert.match(one.patient_number, /^P-\d{6}$/);
    assert.deepEqual(
      [
        one.channel,
        one.to,
        one.subject,
        one.text,
        one.attempts,
        one.next_attempt_at,
        one.sent_at,
        one.provider_message_id,
        one.error,
        one.reason,
      ],
      [null, null, null, null, 0, null, null, null, null, null],
    );
  });

  it('filters by clinic day, state, patient and appointment, and pages by due time', async () => {
    // 04.03.2030 in Vienna: the second appointment's 2h and the first's 1d.
    assert.deepEqual(
      (await list('?date=2030-03-04')).map((r) => r.due_at),
      ['2030-03-04T06:00:00.000Z', '2030-03-04T09:00:00.000Z'],
    );
    assert.equal((await list(`?patient_id=${ids.lena}`)).length, 2);
    assert.equal((await list(`?appointment_id=${ids.second}&patient_id=${ids.lena}`)).length, 0);
    const page = await server.request('GET', '/reminders?limit=3');
    assert.equal(page.body.length, 3);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')![1]!;
    const rest = await server.request('GET', next.slice(next.indexOf('/reminders')));
    assert.deepEqual(
      rest.body.map((r: Listed) => r.rule),
      ['2h'],
    );
    // A reschedule through the API withdraws and plans anew; the states filter sees both.
    const moved = await server.request('PATCH', `/appointments/${ids.second}`, {
      body: { start_at: '2030-03-06T09:00:00', end_at: '2030-03-06T09:30:00' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(
      (await list(`?appointment_id=${ids.second}&state=withdrawn,scheduled`)).map((r) => [r.rule, r.state, r.reason]),
      [
        ['1d', 'withdrawn', 'rescheduled'],
        ['2h', 'withdrawn', 'rescheduled'],
        ['1d', 'scheduled', null],
        ['2h', 'scheduled', null],
      ],
    );
    assert.equal((await list('?state=sent')).length, 0);
    // Every state in one order, (due_at, id), the withdrawn among the scheduled, and the same page by page.
    const whole = (await list()) as (Listed & { id: string })[];
    const order = whole.map((r) => `${r.due_at} ${r.id}`);
    assert.deepEqual(order, [...order].sort());
    assert.deepEqual(new Set(whole.map((r) => r.state)), new Set(['scheduled', 'withdrawn']));
    assert.notDeepEqual(
      whole.map((r) => r.state),
      [...whole.map((r) => r.state)].sort(),
      'the states interleave by due time',
    );
    const paged: { id: string }[] = [];
    for (let path: string | undefined = '/reminders?limit=2'; path !== undefined;) {
      const page: ApiResponse = await server.request('GET', path);
      paged.push(...(page.body as { id: string }[]));
      const next: string | undefined = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
      path = next?.slice(next.indexOf('/reminders'));
    }
    assert.deepEqual(
      paged.map((r) => r.id),
      whole.map((r) => r.id),
    );
  });

  it('refuses a state, date or cursor it does not know with 422, every one at once', async () => {
    const refused = await server.request('GET', '/reminders?state=scheduled,lost&date=4.3.2030&after=xyz');
    assert.equal(refused.status, 422);
    assert.deepEqual(
      refused.body.detail.map((issue: { loc: unknown[] }) => issue.loc),
      [
        ['query', 'date'],
        ['query', 'state', 1],
        ['query', 'after'],
      ],
    );
  });

  it('records one reminder.read per patient shown, and needs reminders:read', async () => {
    const before = (await server.request('GET', '/audit-events?action=reminder.read')).body.length;
    await list();
    const events = (await server.request('GET', '/audit-events?action=reminder.read')).body.slice(before);
    assert.deepEqual(events.map((e: { patient_id: string }) => e.patient_id).sort(), [ids.lena, ids.max].sort());
    const reader = server.createKey(['appointments:read']);
    const forbidden = await server.request('GET', '/reminders', { key: reader });
    assert.deepEqual([forbidden.status, forbidden.body.detail.code], [403, 'FORBIDDEN']);
    assert.equal((await server.request('GET', '/reminders', { key: server.createKey(['reminders:read']) })).status, 200);
  });
});

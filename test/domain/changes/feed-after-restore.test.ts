import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/db/open-database.js';
import { sqliteDriver } from '../../../src/db/drivers/sqlite-driver.js';
import { createApiKey } from '../../../src/domain/api-keys.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient } from '../../helpers/builders.js';
import { startTestServer } from '../../helpers/test-server.js';
import { lostMargin, type ChangeEvent } from '../../helpers/change-feed.js';
import { checkedFetch } from '../../helpers/contract.js';
import { useDataDirs } from '../../helpers/fixtures.js';
import { runClinic, startServeProcess, STOP_SIGNAL, type CliResult, type ServeProcess } from '../../helpers/run-cli.js';

// Issue 39, M4: after a restore the feed reused numbers. Events committed after the backup
// (evt_4…evt_8 here) were lost with it, new events got evt_4… again with other contents under
// the same webhook-id, which Standard Webhooks receivers drop as duplicates, and a GET /events
// consumer at 8 got [] until the feed passed 8. Real processes: the desk's commands, `clinic
// serve` delivering to a receiver on a loopback port, and GET /events.

const newDir = useDataDirs();

const ok = (result: CliResult) => {
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return result.stdout;
};
const clinicIn =
  (dataDir: string) =>
  (...args: string[]) =>
    runClinic([...args, '--data', dataDir]);

/** Every delivery a webhook receiver answered 200: its webhook-id and body, in arrival order. */
const deliveries: { id: string; body: string }[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    deliveries.push({ id: String(request.headers['webhook-id']), body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(200).end();
  });
});

async function until(predicate: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; delivered ${deliveries.map((d) => d.id).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** `clinic serve` over `dataDir` while `work` runs, then asked to stop (exit 0). */
async function serving<T>(dataDir: string, work: (serve: ServeProcess) => Promise<T>): Promise<T> {
  const serve = await startServeProcess(['--data', dataDir]);
  try {
    return await work(serve);
  } finally {
    serve.child.kill(STOP_SIGNAL);
    const { code } = await serve.exited;
    assert.equal(code, 0, serve.output().stderr);
  }
}

/** GET /events on a running serve: its status and body. */
async function events(serve: ServeProcess, key: string, query: string): Promise<{ status: number; body: any }> {
  const response = await checkedFetch(`${serve.baseUrl}/events${query}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, body: await response.json() };
}

/**
 * Creates patients, one change event each, as the desk does (the same use case), on a connection
 * of the test's own: a desk process per patient would cost seconds each on a busy machine.
 */
function createPatients(dataDir: string, names: readonly string[]): void {
  const db = openDatabase(dataDir);
  try {
    for (const name of names) createPatient(db, buildPatient({ last_name: name }));
  } finally {
    db.close();
  }
}

/** The seq of every event in the feed of `dataDir`, read from its database. */
function seqsIn(dataDir: string): number[] {
  const db = sqliteDriver().open(join(dataDir, 'clinic.db'));
  try {
    return db
      .prepare<[], { seq: number }>('SELECT seq FROM change_events ORDER BY seq')
      .all()
      .map((row) => row.seq);
  } finally {
    db.close();
  }
}

describe('M4: the change feed after a restore (issue 39)', () => {
  let old: string;
  let backup: string;
  let key: string;
  /** What the replaced database handed out after the backup: ids and bodies, as its consumer and receiver saw them. */
  let lostEvents: ChangeEvent[];

  before(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    old = newDir();
    const clinic = clinicIn(old);
    const db = openDatabase(old);
    try {
      key = createApiKey(db, { name: 'crm' }).key;
    } finally {
      db.close();
    }
    createPatients(old, ['Eins', 'Zwei', 'Drei']);
    // Added now, the endpoint stands at seq 3, as one that had been delivered evt_1…evt_3.
    ok(await clinic('webhook', 'add', '--url', url, '--name', 'crm'));
    backup = join(newDir(), 'clinic.tar.gz');
    ok(await clinic('backup', backup));
    // After the backup: five more changes, read by a consumer and delivered to the receiver.
    createPatients(old, ['Vier', 'Fuenf', 'Sechs', 'Sieben', 'Acht']);
    lostEvents = await serving(old, async (serve) => {
      await until(() => deliveries.length === 5, 'evt_4…evt_8');
      return (await events(serve, key, '?after=3')).body as ChangeEvent[];
    });
    assert.deepEqual(
      lostEvents.map((event) => event.id),
      ['evt_4', 'evt_5', 'evt_6', 'evt_7', 'evt_8'],
    );
  });
  after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('restore --replaces marks what the replaced database handed out as lost; new events and webhook ids follow it', async () => {
    const restored = newDir();
    const summary = JSON.parse(ok(await runClinic(['restore', backup, '--replaces', old, '--json', '--data', restored])));
    assert.deepEqual(summary.change_feed_lost, {
      first_seq: 4,
      last_seq: 8,
      bound: 'replaced_database',
      restart_after: 3,
      unreadable: null,
    });
    createPatients(restored, ['Neun', 'Zehn']);
    assert.deepEqual(seqsIn(restored), [1, 2, 3, 9, 10]);

    await serving(restored, async (serve) => {
      await until(() => deliveries.length === 7, 'the two new events');
      assert.deepEqual(
        deliveries.map((delivery) => delivery.id),
        ['evt_4', 'evt_5', 'evt_6', 'evt_7', 'evt_8', 'evt_9', 'evt_10'],
        'the endpoint resumes after the lost numbers: no webhook-id is sent for a second event',
      );

      // A consumer that read up to 8 (or any lost position) is told to start again, not left waiting.
      for (const position of [8, 4, 6]) {
        const asked = Date.now();
        const lost = await events(serve, key, `?after=${position}&wait=5`);
        assert.ok(Date.now() - asked < 2_000, 'answered at once, not held for its wait');
        assert.equal(lost.status, 409);
        assert.equal(lost.body.detail.code, 'FEED_POSITION_LOST');
        assert.equal(lost.body.detail.restart_after, 3);
      }
      const again = await events(serve, key, '?after=3');
      assert.equal(again.status, 200);
      assert.deepEqual(
        (again.body as ChangeEvent[]).map((event) => [event.id, event.seq, event.data.patient_number]),
        [
          ['evt_9', 9, 'P-000004'],
          ['evt_10', 10, 'P-000005'],
        ],
      );
      const all = (await events(serve, key, '?after=0')).body as ChangeEvent[];
      assert.deepEqual(
        all.map((event) => event.seq),
        [1, 2, 3, 9, 10],
      );
      assert.equal((await events(serve, key, '?after=10')).status, 200, 'a position after the lost ones is answered as ever');
    });
    const check = await runClinic(['check', '--data', restored]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it('restore without --replaces marks a margin of 1,000,000 lost: new events start after it', async () => {
    const restored = newDir();
    const summary = JSON.parse(ok(await runClinic(['restore', backup, '--json', '--data', restored])));
    createPatients(restored, ['Neu']);
    // The finding itself first: the new event must not take a number the lost events had (1.2.0 gave it 4).
    const handedOut = new Set(lostEvents.map((event) => event.seq));
    assert.ok(!seqsIn(restored).some((seq) => handedOut.has(seq)), `seq ${seqsIn(restored).join(', ')} reuses one of 4-8`);
    assert.deepEqual(seqsIn(restored), [1, 2, 3, 1_000_004]);
    assert.deepEqual(summary.change_feed_lost, lostMargin(3));
    const check = await runClinic(['check', '--data', restored]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    // The server in this process (it removes the directory when it stops).
    const server = await startTestServer({}, restored);
    try {
      const lost = await server.request('GET', '/events?after=8');
      assert.deepEqual([lost.status, lost.body.detail.code, lost.body.detail.restart_after], [409, 'FEED_POSITION_LOST', 3]);
      assert.deepEqual(
        ((await server.request('GET', '/events?after=3')).body as ChangeEvent[]).map((event) => event.id),
        ['evt_1000004'],
      );
    } finally {
      await server.close();
    }

    // For people, the restore says where the feed goes on and who must start again.
    const forPeople = ok(await runClinic(['restore', backup, '--data', newDir()]));
    assert.match(forPeople, /^the change feed goes on at seq 1000004; seq 4 to 1000003 are lost \(.*a margin.*\)\.$/m);
    assert.match(forPeople, /^An integration that read past seq 3 must start again after it \(FEED_POSITION_LOST\)\.$/m);
  });

  it('a replaced database that cannot be read is said, and the margin taken', async () => {
    const restored = newDir();
    const empty = newDir();
    const summary = JSON.parse(ok(await runClinic(['restore', backup, '--replaces', empty, '--json', '--data', restored])));
    assert.equal(summary.change_feed_lost.bound, 'margin');
    assert.equal(summary.change_feed_lost.last_seq, 1_000_003);
    assert.match(summary.change_feed_lost.unreadable, /clinic\.db does not exist/);
  });

  it('clinic check accepts the positions a restore left behind, and still finds an event missing or one numbered among them', async () => {
    const restored = newDir();
    ok(await runClinic(['restore', backup, '--replaces', old, '--data', restored]));
    createPatients(restored, ['Neun', 'Zehn']);
    assert.equal((await runClinic(['check', '--data', restored])).code, 0);

    const db = sqliteDriver().open(join(restored, 'clinic.db'));
    try {
      // What only someone writing the file by hand can do: an event removed, one numbered in the lost range.
      db.exec(`DROP TRIGGER change_events_are_append_only_on_delete; DELETE FROM change_events WHERE seq = 9;
        INSERT INTO change_events (seq, type, occurred_at, patient_id, data) VALUES (5, 'patient.created', '2026-11-28T10:00:00.000Z', NULL, '{}')`);
    } finally {
      db.close();
    }
    const check = await runClinic(['check', '--json', '--data', restored]);
    assert.equal(check.code, 1, check.stdout + check.stderr);
    const feed = (JSON.parse(check.stdout) as { checks: { name: string; findings: string[] }[] }).checks.find(
      (outcome) => outcome.name === 'change_feed',
    );
    assert.deepEqual(feed?.findings, [
      "the change feed's trigger change_events_are_append_only_on_delete is missing: its events could be changed or deleted unnoticed by SQLite",
      'the change feed has 4 events but its last is seq 10 (less 5 positions a restore left behind): 1 missing',
      "the change feed's event seq 5 lies in the range 4–8 a restore left behind",
    ]);
  });

  it('a restore that lost nothing marks nothing: the feed goes on without a gap', async () => {
    const restored = newDir();
    const again = join(newDir(), 'now.tar.gz');
    ok(await runClinic(['backup', again, '--data', old]));
    const summary = JSON.parse(ok(await runClinic(['restore', again, '--replaces', old, '--json', '--data', restored])));
    assert.equal(summary.change_feed_lost, null);
    createPatients(restored, ['Neun']);
    assert.deepEqual(seqsIn(restored), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

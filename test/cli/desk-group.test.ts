import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { checkedFetch } from '../helpers/contract.js';
import { createPatientArgs } from '../helpers/desk-args.js';
import { jsonOf } from '../helpers/desk-output.js';
import { useDataDirs } from '../helpers/fixtures.js';
import { runClinic, startServeProcess, STOP_SIGNAL, type SpawnOptions, unwrapped } from '../helpers/run-cli.js';
import { gidOf, systemUsersSkipReason, useSystemUsers } from '../helpers/system-users.js';

// The Linux install of docs/install.md for real: the server runs as a service user whose primary
// group is the staff group; desk staff are members of that group and run desk commands as
// themselves on the same data directory; everyone else is kept out. Every process runs with a
// umask of 077 (the old systemd unit's), which must not take the group's access away.

const GROUP = 'clinictest-staff';
const SERVICE = 'clinictest-svc';
const DESK = 'clinictest-desk';
const OUTSIDER = 'clinictest-out';

const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);

describe("desk staff in the data directory's group, beside the server's user", { skip: systemUsersSkipReason, timeout: 300_000 }, () => {
  const users = useSystemUsers(GROUP, { [SERVICE]: 'primary', [DESK]: 'member', [OUTSIDER]: 'none' });
  const newDir = useDataDirs();
  let dataDir: string;
  /** How to run the program as `name`. */
  const as = (name: string): SpawnOptions => ({ user: { name, home: users[name]!.home }, umask: 0o077 });

  before(() => {
    // As /var/lib/clinic: the service user's, which others may pass through to the data directory.
    const parent = newDir();
    chownSync(parent, users[SERVICE]!.uid, users[SERVICE]!.gid);
    chmodSync(parent, 0o755);
    dataDir = join(parent, 'data');
  });

  it('the server as the service user and a desk user in its group each read and write what the other wrote', async () => {
    const desk = (...args: string[]) => runClinic([...args, '--data', dataDir], as(DESK));
    const serve = await startServeProcess(['--data', dataDir], as(SERVICE));
    try {
      const key = /(clinic_[A-Za-z0-9_-]{43})/.exec(serve.output().stdout)?.[1];
      assert.ok(key, serve.output().stdout);
      const headers = { authorization: `Bearer ${key}` };

      // The desk writes a patient through the server's open WAL; the server reads it.
      const patient = jsonOf<{ id: string }>(
        await desk(...createPatientArgs('Ada', 'Deskwright', 'ada@example.org', '+43 660 1'), '--json'),
      );
      assert.equal((await checkedFetch(`${serve.baseUrl}/patients/${patient.id}`, { headers })).status, 200);

      // The server writes a patient; the desk finds it.
      const posted = await checkedFetch(`${serve.baseUrl}/patients`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ first_name: 'Bea', last_name: 'Servewright', email: 'bea@example.org', mobile: '+43 660 2' }),
      });
      assert.equal(posted.status, 201);
      const found = await desk('patient', 'find', 'Servewright');
      assert.equal(found.code, 0, found.stderr);
      assert.match(found.stdout, /Servewright/);

      // The desk uploads a document (a folder and a file of its own); the server serves it.
      const scan = join(users[DESK]!.home, 'scan.bin');
      const bytes = randomBytes(5000);
      writeFileSync(scan, bytes);
      chownSync(scan, users[DESK]!.uid, users[DESK]!.gid);
      const uploaded = await desk('upload-document', '--patient-id', patient.id, '--file', scan, '--json');
      assert.equal(uploaded.code, 0, uploaded.stderr);
      const document = JSON.parse(uploaded.stdout) as { id: string };
      const served = await fetch(`${serve.baseUrl}/patients/${patient.id}/documents/${document.id}`, { headers });
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);

      // The desk sees the server's lock, and `check` finds nothing wrong.
      const status = await desk('autostart', 'status', '--json');
      assert.equal(status.code, 0, status.stderr);
      assert.equal((JSON.parse(status.stdout) as { server_running: boolean }).server_running, true);
      const check = await desk('check');
      assert.equal(check.code, 0, check.stdout + check.stderr);

      // What each made has the group's access and group, whoever made it.
      const staff = gidOf(GROUP);
      assert.equal(mode(dataDir), '2770');
      assert.equal(statSync(dataDir).uid, users[SERVICE]!.uid);
      for (const name of ['clinic.db', 'clinic.db-wal', 'clinic.db-shm', 'clinic.lock']) {
        assert.equal(mode(join(dataDir, name)), '660', name);
        assert.equal(statSync(join(dataDir, name)).gid, staff, name);
      }
      const folder = join(dataDir, 'documents', patient.id);
      assert.equal(mode(folder), '2770');
      assert.equal(mode(join(folder, document.id)), '660');
      assert.deepEqual([statSync(join(folder, document.id)).uid, statSync(join(folder, document.id)).gid], [users[DESK]!.uid, staff]);
    } finally {
      serve.child.kill(STOP_SIGNAL);
    }
    assert.equal((await serve.exited).code, 0);

    // Without a server, the desk's command makes the WAL itself; the service user reads on after it.
    assert.equal((await desk(...createPatientArgs('Cy', 'Latewright', 'cy@example.org', '+43 660 1'))).code, 0);
    const later = await runClinic(['patient', 'find', 'Latewright', '--data', dataDir], as(SERVICE));
    assert.equal(later.code, 0, later.stderr);
    assert.match(later.stdout, /Latewright/);
  });

  it('refuses a user outside the group with DATA_DIRECTORY_UNUSABLE naming the database, never INTERNAL', async () => {
    for (const command of [['patient', 'find', 'Ada'], createPatientArgs('Eve', 'Out', 'eve@example.org', '+43 660 1')]) {
      const result = await runClinic([...command, '--data', dataDir], as(OUTSIDER));
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        unwrapped(result.stderr),
        new RegExp(
          `^error: DATA_DIRECTORY_UNUSABLE: clinic cannot use ${join(dataDir, 'clinic.db')}: this user may not read and write it \\(EACCES\\)`,
          'm',
        ),
      );
    }
  });
});

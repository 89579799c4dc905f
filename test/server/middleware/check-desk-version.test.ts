import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { silentLogger } from '../../../src/logger.js';
import type { ClinicState } from '../../../src/server/api/state.js';
import { acceptedMinors, checkDeskVersion } from '../../../src/server/middleware/check-desk-version.js';
import { handleErrors } from '../../../src/server/middleware/handle-errors.js';
import { PROGRAM_VERSION } from '../../../src/version.js';

/**
 * Which desk versions a server serves (clinic-api-1.3.md, "Versions, failures, retries"): the same
 * major and a minor at most one apart, else 400 VERSION_UNSUPPORTED; every answer names the
 * server's version; requests without Clinic-Version (integrations) are not checked.
 */

describe('server: the desk version a server serves', () => {
  /** The servers under test by their version, each a Koa app as createApp mounts the check: after the error handler. */
  const servers = new Map<string, { server: Server; base: string }>();
  before(async () => {
    for (const version of ['1.3.0', '1.0.4', undefined]) {
      const app = new Koa<ClinicState>();
      app.use(handleErrors(silentLogger));
      app.use(version === undefined ? checkDeskVersion() : checkDeskVersion(version));
      app.use((ctx) => {
        ctx.body = { answered: true };
      });
      // Koa settles every request itself; node:http wants no promise back.
      const handle = app.callback();
      const server = createServer((request, response) => void handle(request, response));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.set(version ?? 'default', { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    }
  });
  after(() => {
    for (const { server } of servers.values()) server.close();
  });

  /** GET / of the server of `version`, sending `deskVersion` as Clinic-Version unless undefined. */
  const ask = async (version: string, deskVersion?: string) => {
    const response = await fetch(`${servers.get(version)!.base}/`, {
      headers: deskVersion === undefined ? {} : { 'clinic-version': deskVersion },
    });
    return { status: response.status, serverVersion: response.headers.get('clinic-version'), body: (await response.json()) as any };
  };

  it('accepts the minors of the same major one either side of its own, none below 0', () => {
    assert.deepEqual(acceptedMinors('1.3.0'), ['1.2', '1.3', '1.4']);
    assert.deepEqual(acceptedMinors('1.0.4'), ['1.0', '1.1']);
    assert.deepEqual(acceptedMinors('2.10.1'), ['2.9', '2.10', '2.11']);
  });

  it('serves a desk of its minor or the next or previous one, whatever the patch', async () => {
    for (const deskVersion of ['1.2.0', '1.3.0', '1.3.9', '1.4.17', ' 1.4.0 ', '01.003.0']) {
      const answer = await ask('1.3.0', deskVersion);
      assert.deepEqual([answer.status, answer.body], [200, { answered: true }], deskVersion);
    }
  });

  it('refuses a desk two minors or a major apart with 400 VERSION_UNSUPPORTED, naming both versions and what it accepts', async () => {
    for (const deskVersion of ['1.1.9', '1.5.0', '2.3.0', '0.3.0']) {
      const answer = await ask('1.3.0', deskVersion);
      assert.equal(answer.status, 400, deskVersion);
      assert.deepEqual(
        answer.body.detail,
        {
          code: 'VERSION_UNSUPPORTED',
          message: `this desk runs clinic ${deskVersion} and the server 1.3.0; install clinic 1.3 or 1.4 here, or update the server`,
          desk_version: deskVersion,
          server_version: '1.3.0',
          accepted: ['1.2', '1.3', '1.4'],
        },
        deskVersion,
      );
    }
    const oldest = await ask('1.0.4', '1.2.0');
    assert.deepEqual([oldest.status, oldest.body.detail.accepted], [400, ['1.0', '1.1']]);
  });

  it('refuses a Clinic-Version that is not MAJOR.MINOR.PATCH the same way', async () => {
    for (const deskVersion of ['1.3', '1.3.0-beta.1', 'v1.3.0', '1.3.0.0', 'clinic', '1.3.1234567890']) {
      const answer = await ask('1.3.0', deskVersion);
      assert.deepEqual([answer.status, answer.body.detail.code], [400, 'VERSION_UNSUPPORTED'], deskVersion);
    }
  });

  it("names the server's version on every answer, refused or not, and checks nothing without a Clinic-Version", async () => {
    assert.deepEqual(await ask('1.3.0'), { status: 200, serverVersion: '1.3.0', body: { answered: true } });
    assert.equal((await ask('1.3.0', '1.9.0')).serverVersion, '1.3.0');
    assert.equal((await ask('1.3.0', '')).status, 200, 'an empty Clinic-Version is none');
    assert.deepEqual(await ask('default'), { status: 200, serverVersion: PROGRAM_VERSION, body: { answered: true } });
  });
});

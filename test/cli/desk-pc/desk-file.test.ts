// desk.json, what makes this OS user's PC a desk of a server (src/cli/desk-pc/desk-file.ts): clinic-api-1.3.md, "Pairing" (the URL, the CA, the device's id, name and token in the OS user's configuration folder, folder 0700, files 0600; DESK_NOT_JOINED).
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deskSessionKey, isDeskPc, readDeskFile, writeDeskFile, type DeskFile } from '../../../src/cli/desk-pc/desk-file.js';
import { useConfigHome } from '../../helpers/fixtures.js';

const DESK: DeskFile = {
  server_url: 'https://clinic-pc:8080',
  ca_pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  ca_sha256: '3F:A1:9C',
  device_id: '0f0f0f0f-0000-4000-8000-000000000001',
  device_name: 'Empfang 2',
  device_token: 'cld_secret',
  server_version: '1.3.0',
  joined_at: '2026-11-30T08:00:00.000Z',
};

describe("this PC's desk.json (desk-file)", () => {
  const configHome = useConfigHome({ each: true, prefix: 'clinic-desk-file-' });
  const deskFile = () => join(configHome(), 'clinic', 'desk.json');

  it('is no desk PC until joined: DESK_NOT_JOINED, saying how to join', () => {
    assert.equal(isDeskPc(), false);
    assert.throws(() => readDeskFile(), {
      code: 'DESK_NOT_JOINED',
      message: 'This PC is not a desk of any server; join one with the line `clinic desk pair` prints on the server PC.',
    });
  });

  it("keeps what the join gave whole and this OS user's alone (folder 0700, file 0600), and reads it back", () => {
    writeDeskFile(DESK);
    assert.equal(isDeskPc(), true);
    assert.deepEqual(readDeskFile(), DESK);
    if (process.platform !== 'win32') {
      assert.equal(statSync(deskFile()).mode & 0o777, 0o600, 'the device token is no one else’s');
      assert.equal(statSync(join(configHome(), 'clinic')).mode & 0o777, 0o700);
    }
    assert.deepEqual(readdirSync(join(configHome(), 'clinic')), ['desk.json'], 'no temporary file left');
  });

  it('reads a damaged desk.json as not joined, while the PC still counts as a desk (its commands are not run on local data)', () => {
    mkdirSync(join(configHome(), 'clinic'));
    writeFileSync(deskFile(), '{"server_url": "https://clinic-pc');
    assert.equal(isDeskPc(), true);
    assert.throws(() => readDeskFile(), { code: 'DESK_NOT_JOINED' });
  });

  it("keeps one session per server, under the server's URL", () => {
    assert.equal(deskSessionKey(DESK), 'desk https://clinic-pc:8080');
    assert.notEqual(deskSessionKey({ server_url: 'https://praxis-2:8080' }), deskSessionKey(DESK));
  });
});

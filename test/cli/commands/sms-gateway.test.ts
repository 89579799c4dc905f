// `clinic sms-gateway set|show|remove` (src/cli/commands/sms-gateway.ts): the clinic's SMS gateway for reminders, its token read from the first line of --token-file and, like header values, never printed (clinic-api-1.3.md, "Channels and replies").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { smsGateway } from '../../../src/domain/reminders/sms-gateway.js';
import { twilioGatewayArgs } from '../../helpers/desk-args.js';
import { forPeople, jsonOf } from '../../helpers/desk-output.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic, unwrapped, type CliResult } from '../../helpers/run-cli.js';

const TOKEN = 'tok-9f2c-secret';

describe('clinic sms-gateway', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'clinic-sms-gateway-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));
  /** A command's whole output holds no secret. */
  const assertNoSecret = (result: CliResult, ...secrets: string[]) => {
    for (const secret of secrets) assert.ok(!`${result.stdout}${result.stderr}`.includes(secret), `printed ${secret}`);
  };

  it('says reminders go by e-mail while there is no gateway, and that there was none to remove', async () => {
    assert.equal(
      forPeople(await clinic('sms-gateway', 'show')),
      'No SMS gateway: reminders go by e-mail (clinic sms-gateway set adds one).\n',
    );
    assert.equal(jsonOf(await clinic('sms-gateway', 'show', '--json')), null);
    assert.equal(forPeople(await clinic('sms-gateway', 'remove')), 'There was no SMS gateway.\n');
    assert.deepEqual(jsonOf(await clinic('sms-gateway', 'remove', '--json')), { removed: false });
  });

  it("sets Twilio's preset with the token on the first line of --token-file, never printing it", async () => {
    const tokenFile = join(folder, 'twilio token.txt');
    // Written on Windows, with a comment line after it.
    writeFileSync(tokenFile, `${TOKEN}\r\n# Twilio console, 30.11.2026\r\n`);
    const set = await clinic(...twilioGatewayArgs('AC0123', tokenFile, '+436601234567'));
    assert.equal(
      forPeople(set),
      [
        'SMS gateway set; clinic serve sends by it within a minute.',
        'Preset    twilio',
        'Sends to  https://api.twilio.com/2010-04-01/Accounts/AC0123/Messages.json',
        'From      +436601234567',
        'Headers   Authorization (values kept, never shown)',
        'Replies   https://api.twilio.com/2010-04-01/Accounts/AC0123/Messages.json',
        '',
      ].join('\n'),
    );
    assertNoSecret(set, TOKEN);
    const stored = smsGateway(data.db);
    assert.deepEqual(stored?.preset === 'twilio' ? [stored.token, stored.account] : stored, [TOKEN, 'AC0123']);
    for (const args of [['show'], ['show', '--json']]) assertNoSecret(await clinic('sms-gateway', ...args), TOKEN);
  });

  it('shows a generic gateway with the names of its headers, never their values, replacing the gateway before', async () => {
    const set = await clinic(
      'sms-gateway',
      'set',
      '--preset',
      'generic',
      '--url',
      'https://sms.example.at/send',
      '--header',
      'X-Api-Key: key-7d1e-secret',
      '--header',
      'X-Reference: {reference}',
      '--body-template',
      '{"to":"{to}","text":"{text}"}',
      '--json',
    );
    assert.deepEqual(jsonOf(set), {
      preset: 'generic',
      url: 'https://sms.example.at/send',
      from: null,
      headers: ['X-Api-Key', 'X-Reference'],
      inbound: null,
    });
    const shown = await clinic('sms-gateway', 'show');
    assert.match(
      forPeople(shown),
      /^From +\(the gateway decides\)\nHeaders +X-Api-Key, X-Reference \(values kept, never shown\)\nReplies +not read \(no --inbound-url\)\n$/m,
    );
    assertNoSecret(shown, 'key-7d1e-secret', TOKEN);
    assert.equal(smsGateway(data.db)?.preset, 'generic', 'the Twilio gateway was replaced');
  });

  it('refuses a --token-file that names no file as usage (exit 2), and Twilio without one naming the option; nothing changes', async () => {
    const missing = await clinic(...twilioGatewayArgs('AC1', join(folder, 'no-token.txt'), '+43660'));
    assert.equal(missing.code, 2);
    assert.match(
      unwrapped(missing.stderr),
      new RegExp(
        `^error: option '--token-file <file>' argument '${join(folder, 'no-token.txt').replace(/[\\.]/g, '\\$&')}' is invalid\\. there is no such file \\(ENOENT\\)`,
      ),
    );
    assert.equal((await clinic(...twilioGatewayArgs('AC1', folder, '+43660'))).code, 2);
    const without = await clinic('sms-gateway', 'set', '--preset', 'twilio', '--account', 'AC1', '--from', '+43660');
    assert.equal(without.code, 1);
    assert.match(without.stderr, /^ {2}--token-file: is required \(missing\)$/m);
    assert.equal(smsGateway(data.db)?.preset, 'generic');
  });

  it('removes the gateway, saying reminders go by e-mail from then on', async () => {
    assert.equal(forPeople(await clinic('sms-gateway', 'remove')), 'SMS gateway removed: reminders go by e-mail, or are skipped.\n');
    assert.equal(smsGateway(data.db), null);
  });
});

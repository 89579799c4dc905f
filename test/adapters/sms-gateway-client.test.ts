import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { fetchReplies, sendSms } from '../../src/adapters/sms-gateway-client.js';
import { SmsSendError, type SmsGateway } from '../../src/domain/reminders/sms-gateway.js';
import { startGateway } from '../helpers/local-sms-gateway.js';
import { genericSmsGateway } from '../helpers/sms-gateways.js';
import { closedPort } from '../helpers/smtp-sink.js';

/**
 * The HTTP client of the clinic's SMS gateway (clinic-api-1.3.md, "Channels and replies"): Twilio's
 * Messages API and a generic JSON gateway, each served here by a local server that answers as the
 * provider does; what is sent, the id kept, the `error` written, which refusals are tried again,
 * and how replies are read.
 */

const MESSAGE = { to: '+436641234567', text: 'Hallo Lena, Ihr Termin ist am 02.12.2026 um 14:00.', reference: 'a3f1c9e2-rem' };

/** What a send was refused with: its `error` text and whether a later try may pass. */
async function refusal(sending: Promise<unknown>): Promise<[string, boolean]> {
  try {
    await sending;
  } catch (error) {
    if (error instanceof SmsSendError) return [error.message, error.transient];
    throw error;
  }
  assert.fail('the send was not refused');
}

describe('adapters: the SMS gateway client', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());
  afterEach(() => {
    gateway.received.length = 0;
  });
  const twilio = (): SmsGateway => ({
    preset: 'twilio',
    account: 'AC0123456789',
    token: 's3cret',
    from: '+43720123456',
    baseUrl: gateway.url,
  });
  const generic = (overrides: Partial<Extract<SmsGateway, { preset: 'generic' }>> = {}) =>
    genericSmsGateway(`${gateway.url}/v1/sms`, overrides);
  const basicAuth = `Basic ${Buffer.from('AC0123456789:s3cret').toString('base64')}`;

  it("sends through Twilio as a form POST to the account's Messages.json with Basic auth, keeping the sid", async () => {
    gateway.answer(201, { sid: 'SM0f1e2d3c4b5a', status: 'queued' });
    assert.equal(await sendSms(twilio(), MESSAGE), 'SM0f1e2d3c4b5a');
    const [request] = gateway.received;
    assert.deepEqual(
      [request!.method, request!.path, request!.headers.authorization, request!.headers['content-type']],
      ['POST', '/2010-04-01/Accounts/AC0123456789/Messages.json', basicAuth, 'application/x-www-form-urlencoded'],
    );
    assert.deepEqual(Object.fromEntries(new URLSearchParams(request!.body)), { To: MESSAGE.to, From: '+43720123456', Body: MESSAGE.text });
    gateway.answer(200, { status: 'queued' });
    assert.equal(await sendSms(twilio(), MESSAGE), null);
  });

  it("writes a refusal's status and the provider's reason, and tries again only after 408, 429 and 5xx", async () => {
    const transient: [number, boolean][] = [
      [400, false],
      [401, false],
      [404, false],
      [409, false],
      [408, true],
      [429, true],
      [500, true],
      [503, true],
    ];
    for (const [status, again] of transient) {
      gateway.answer(status, { code: 21211, message: "The 'To' number is not a valid phone number." });
      assert.deepEqual(
        await refusal(sendSms(twilio(), MESSAGE)),
        [`HTTP ${status}: 21211 The 'To' number is not a valid phone number.`, again],
        String(status),
      );
    }
    gateway.answer(502, `<html>\u0007Bad\r\n\tGateway${'!'.repeat(400)}</html>`);
    const [error] = await refusal(sendSms(twilio(), MESSAGE));
    assert.equal(error, `HTTP 502: ${`<html> Bad Gateway${'!'.repeat(400)}`.slice(0, 300)}`);
  });

  it("fills a generic gateway's template and headers with the reminder's reference, JSON unless it says otherwise", async () => {
    gateway.answer(200, { data: [{ id: 42 }] });
    const gatewayWithHeaders = generic({
      headers: [
        ['X-Api-Key', 'k-123'],
        ['Idempotency-Key', 'clinic-{reference}'],
      ],
      bodyTemplate: '{"recipient":"{to}","sender":"{from}","message":"{text}","meta":{"ref":"{reference}"}}',
      from: '+43720123456',
      idPointer: '/data/0/id',
    });
    assert.equal(await sendSms(gatewayWithHeaders, { ...MESSAGE, text: 'Say "C" \\ confirm' }), '42');
    const [request] = gateway.received;
    assert.deepEqual(JSON.parse(request!.body), {
      recipient: MESSAGE.to,
      sender: '+43720123456',
      message: 'Say "C" \\ confirm',
      meta: { ref: MESSAGE.reference },
    });
    assert.deepEqual(
      [request!.path, request!.headers['x-api-key'], request!.headers['idempotency-key'], request!.headers['content-type']],
      ['/v1/sms', 'k-123', `clinic-${MESSAGE.reference}`, 'application/json'],
    );
    gateway.answer(202, { accepted: true });
    assert.equal(await sendSms(generic({ headers: [['Content-Type', 'application/vnd.sms+json']] }), MESSAGE), null);
    assert.equal(gateway.received[1]!.headers['content-type'], 'application/vnd.sms+json');
  });

  it("writes a generic gateway's refusal as the string at its error pointer, else the answer's start", async () => {
    gateway.answer(422, { errors: [{ detail: 'recipient blocked' }] });
    assert.deepEqual(await refusal(sendSms(generic({ errorPointer: '/errors/0/detail' }), MESSAGE)), [
      'HTTP 422: recipient blocked',
      false,
    ]);
    gateway.answer(503, { error: { code: 7 } });
    assert.deepEqual(await refusal(sendSms(generic(), MESSAGE)), ['HTTP 503: {"error":{"code":7}}', true]);
  });

  it('takes a gateway that cannot be reached as a failure to try again, naming its address', async () => {
    const port = await closedPort();
    assert.deepEqual(await refusal(sendSms(generic({ url: `http://127.0.0.1:${port}/v1/sms` }), MESSAGE)), [
      `127.0.0.1:${port}: ECONNREFUSED`,
      true,
    ]);
  });

  it("reads Twilio's inbound messages from the UTC day before the newest reply handled, at most 10 pages a pass", async () => {
    const now = Date.parse('2026-12-01T08:00:30Z');
    gateway.answer(200, {
      messages: [
        { sid: 'SMin1', from: '+436641234567', body: 'C', direction: 'inbound', date_sent: 'Tue, 01 Dec 2026 07:59:10 +0000' },
        { sid: 'SMout', from: '+43720123456', body: 'Hallo Lena', direction: 'outbound-api', date_sent: 'Mon, 30 Nov 2026 13:00:05 +0000' },
        { sid: 'SMin2', from: '+436641234599', body: 'X', direction: 'inbound', date_sent: null },
        { sid: 7, from: '+436641234599', body: 'J', direction: 'inbound' },
      ],
      next_page_uri: null,
    });
    const replies = await fetchReplies(twilio(), new Date('2026-12-01T00:10:00Z'), now);
    assert.deepEqual(replies, [
      { providerId: 'SMin1', from: '+436641234567', text: 'C', receivedAt: '2026-12-01T07:59:10.000Z' },
      { providerId: 'SMin2', from: '+436641234599', text: 'X', receivedAt: '2026-12-01T08:00:30.000Z' },
    ]);
    const [request] = gateway.received;
    assert.deepEqual(
      [request!.method, request!.path, request!.headers.authorization],
      ['GET', '/2010-04-01/Accounts/AC0123456789/Messages.json?To=%2B43720123456&DateSent%3E%3D2026-11-30&PageSize=100', basicAuth],
    );
    // A gateway that always has a next page is read 10 pages a pass; the rest waits for the next.
    gateway.answer(200, { messages: [], next_page_uri: '/2010-04-01/Accounts/AC0123456789/Messages.json?Page=1' });
    gateway.received.length = 0;
    assert.deepEqual(await fetchReplies(twilio(), new Date('2026-12-01T00:10:00Z'), now), []);
    assert.deepEqual(
      gateway.received.map((page) => page.path),
      [request!.path, ...Array(9).fill('/2010-04-01/Accounts/AC0123456789/Messages.json?Page=1')],
    );
  });

  it("reads a generic gateway's replies since 10 minutes before the newest handled, as a list or under `messages`", async () => {
    assert.deepEqual(await fetchReplies(generic(), new Date('2026-12-01T08:00:00Z'), Date.now()), []);
    assert.equal(gateway.received.length, 0, 'a gateway without --inbound-url was asked');
    const now = Date.parse('2026-12-01T08:00:30Z');
    const inbound = generic({ inboundUrl: `${gateway.url}/v1/inbox?since={since}`, headers: [['X-Api-Key', 'k-{reference}']] });
    const messages = [
      { id: 91, from: '+436641234567', text: 'ja' },
      { id: 'm-92', from: '+436641234599', text: 'NEIN' },
      { id: 93, text: 'no sender' },
      null,
    ];
    for (const body of [messages, { messages }]) {
      gateway.answer(200, body);
      assert.deepEqual(await fetchReplies(inbound, new Date('2026-12-01T08:00:00Z'), now), [
        { providerId: '91', from: '+436641234567', text: 'ja', receivedAt: '2026-12-01T08:00:30.000Z' },
        { providerId: 'm-92', from: '+436641234599', text: 'NEIN', receivedAt: '2026-12-01T08:00:30.000Z' },
      ]);
    }
    const [request] = gateway.received;
    assert.deepEqual(
      [request!.method, request!.path, request!.headers['x-api-key']],
      ['GET', '/v1/inbox?since=2026-12-01T07%3A50%3A00.000Z', 'k-'],
    );
    gateway.answer(500, 'inbox down');
    await assert.rejects(fetchReplies(inbound, new Date('2026-12-01T08:00:00Z'), now), { message: 'HTTP 500: inbox down' });
  });
});

// Webhook secrets and signatures as Standard Webhooks 1.0 makes them (clinic-api-1.2.md, "Change feed": "`webhook-signature` (`v1,` + base64 of HMAC-SHA256 ...").
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, webhookHeaders } from '../../../src/domain/webhooks/signature.js';

/** The specification's recipe, as an integrator writes it: HMAC-SHA256 keyed with the secret's decoded bytes over `{id}.{timestamp}.{body}`. */
function signatureByRecipe(secret: string, headers: Record<string, string>, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

const BODY =
  '{"id":"evt_42","seq":42,"type":"patient.created","occurred_at":"2026-11-30T08:00:00.000Z","data":{"patient_number":"P-000042"}}';

describe('webhook signatures', () => {
  it('name the event, the time in Unix seconds, and a signature an integrator recomputes by the documented recipe', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders(secret, 'evt_42', 1_796_025_600, BODY);
    assert.deepEqual(Object.keys(headers), ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    assert.equal(headers['webhook-id'], 'evt_42');
    assert.equal(headers['webhook-timestamp'], '1796025600');
    assert.equal(headers['webhook-signature'], signatureByRecipe(secret, headers, BODY));
  });

  it("reproduce the Standard Webhooks specification's own example", () => {
    const headers = webhookHeaders(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.equal(headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('are verified by the standardwebhooks package, and refused for another body, id, time or secret', () => {
    const secret = newWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(secret, 'evt_42', now, BODY);
    assert.deepEqual(new Webhook(secret).verify(BODY, headers), JSON.parse(BODY));
    assert.throws(() => new Webhook(secret).verify(BODY.replace('P-000042', 'P-000043'), headers));
    assert.throws(() => new Webhook(secret).verify(BODY, { ...headers, 'webhook-id': 'evt_43' }));
    assert.throws(() => new Webhook(secret).verify(BODY, { ...headers, 'webhook-timestamp': String(now - 1) }));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(BODY, headers));
  });

  it('are keyed with a new secret each time: whsec_ and the base64 of 32 random bytes, at least the 24 asked for', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newWebhookSecret()));
    assert.equal(secrets.size, 50);
    for (const secret of secrets) {
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    }
  });
});

import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signing as Standard Webhooks 1.0 does: a secret `whsec_` + base64 of random bytes, and the
 * signature `v1,` + base64 of HMAC-SHA256, keyed with the secret's decoded bytes, over
 * `{webhook-id}.{webhook-timestamp}.{body}`. The receiver recomputes it with its copy of the
 * secret (the `standardwebhooks` packages do), and rejects a timestamp too far from its clock.
 */

const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: the specification asks for at least 24. */
const SECRET_BYTES = 32;

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The headers of one delivery attempt of `body` (the event's JSON) as event `id`, at `unixSeconds`. */
export function webhookHeaders(secret: string, id: string, unixSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${unixSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(unixSeconds), 'webhook-signature': `v1,${signature}` };
}

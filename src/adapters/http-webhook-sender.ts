import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { WebhookPost, WebhookSender } from '../domain/webhooks/deliver-webhooks.js';

/** How long an attempt may take, connecting to the last byte of the answer's head (clinic-api-1.2.md). */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** The most of an answer's body that is read (its start is kept for `last_error`); the rest is never fetched. */
const MAX_ANSWER_BYTES = 4096;

/**
 * POSTs webhooks with node:http(s): redirects are not followed (a 3xx is an answer like any
 * other, and not a 2xx), an attempt is cut after WEBHOOK_TIMEOUT_MS, and at most MAX_ANSWER_BYTES
 * of the answer are read, so an endpoint that streams without end costs nothing. The timeout is
 * WEBHOOK_TIMEOUT_MS but where a test gives a shorter one. Certificates are
 * verified as Node verifies them (a private CA through NODE_EXTRA_CA_CERTS).
 */
export function httpWebhookSender(timeoutMs = WEBHOOK_TIMEOUT_MS): WebhookSender {
  return {
    send(post: WebhookPost, signal: AbortSignal): Promise<{ status: number; body: string }> {
      return new Promise((resolve, reject) => {
        if (signal.aborted) {
          reject(new Error('abandoned: the server is stopping'));
          return;
        }
        const url = new URL(post.url);
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        const fail = (error: Error) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          request.destroy();
          reject(error);
        };
        const timer = setTimeout(() => fail(new Error(`timed out after ${timeoutMs / 1000} s`)), timeoutMs);
        const onAbort = () => fail(new Error('abandoned: the server is stopping'));
        signal.addEventListener('abort', onAbort, { once: true });
        const request: ClientRequest = send(
          url,
          {
            method: 'POST',
            headers: {
              ...post.headers,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(post.body),
              'user-agent': 'clinic-webhooks',
            },
          },
          (answer: IncomingMessage) => {
            const chunks: Buffer[] = [];
            let bytes = 0;
            const done = () => {
              clearTimeout(timer);
              signal.removeEventListener('abort', onAbort);
              resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
            };
            answer.on('data', (chunk: Buffer) => {
              chunks.push(chunk);
              bytes += chunk.length;
              if (bytes >= MAX_ANSWER_BYTES) {
                done();
                answer.destroy();
              }
            });
            answer.on('end', done);
            answer.on('error', () => done());
          },
        );
        request.on('error', (error) => fail(error));
        request.end(post.body);
      });
    },
  };
}

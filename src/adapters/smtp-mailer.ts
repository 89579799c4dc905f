import { createTransport } from 'nodemailer';
import type { EmailMessage, Mailer } from '../domain/notifications/deliver-notifications.js';

/** A Mailer over SMTP that can be shut down. */
export interface SmtpMailer extends Mailer {
  close(): void;
}

/**
 * Sends through the SMTP server of `url` (credentials and options may be in the URL) as `from`.
 * The timeouts are far below nodemailer's defaults (2 and 10 minutes) so that an unreachable
 * or stalled server costs one attempt quickly and stopping the server never waits long.
 */
export function createSmtpMailer(url: string, from: string): SmtpMailer {
  const transport = createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    // 15 s without an answer is a transient failure (interface 1.3.0, "Sending").
    socketTimeout: 15_000,
  });
  return {
    async send(message: EmailMessage): Promise<void> {
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
      });
    },
    close: () => transport.close(),
  };
}

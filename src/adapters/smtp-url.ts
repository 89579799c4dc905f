// Apart from smtp-mailer.ts, so that reading serve's options does not load nodemailer.

/** Whether `text` is an SMTP URL nodemailer can use: smtp:// (STARTTLS when offered) or smtps:// (TLS). */
export function isSmtpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
  } catch {
    return false;
  }
}

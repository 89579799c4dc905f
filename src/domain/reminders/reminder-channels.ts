import type { Db } from '../../db/open-database.js';
import { readSetting, removeSetting, writeSetting } from '../../db/settings.js';

/**
 * Which channels the last `clinic serve` had set up for reminders: only `serve` knows its
 * `--smtp-url`, but `reminders preview` at any desk says what would go out, and the patient's copy
 * names the hosts that carried their reminders. Recorded at each start; the host only (the URL may
 * hold a password).
 */

const EMAIL_HOST = 'serve.smtp_host';

/** Records the SMTP host `serve` sends by (host:port), or that it sends no e-mail (null). */
export function recordServerChannels(db: Db, smtpHost: string | null): void {
  if (smtpHost === null) removeSetting(db, EMAIL_HOST);
  else writeSetting(db, EMAIL_HOST, smtpHost);
}

/** The SMTP host the last `serve` sent e-mail by, or null when it sent none. */
export function serverEmailHost(db: Db): string | null {
  return readSetting(db, EMAIL_HOST) ?? null;
}

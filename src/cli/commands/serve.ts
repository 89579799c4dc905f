import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { acquireInstanceLock, LOCK_FILE } from '../../db/instance-lock.js';
import { openDatabase, type Db } from '../../db/open-database.js';
import { createApiKey, hasApiKeys } from '../../domain/api-keys.js';
import { recoverInterruptedUploads } from '../../domain/documents/recover-uploads.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../notifications/delivery-worker.js';
import { createSmtpMailer, isSmtpUrl } from '../../notifications/smtp-mailer.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES, DEFAULT_JSON_BODY_LIMIT_BYTES, API_PREFIX } from '../../server/config.js';
import { jsonLineLogger } from '../../server/logger.js';
import { startServer } from '../../server/start-server.js';
import { PROGRAM_VERSION } from '../../version.js';
import { optionOrEnv, parseMegabytes, resolveDocumentLimitBytes } from '../env-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

interface ServeOptions extends CommonOptions {
  host: string;
  port?: number;
  documentLimitMb?: number;
  smtpUrl?: string;
  smtpFrom: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * How long requests in flight get to finish after SIGTERM/SIGINT before their connections are
 * cut, so that a stuck client cannot hold a stop past the 10 s operators are promised; the rest
 * is for closing the database.
 */
const SHUTDOWN_GRACE_MS = 8000;

// Option parsers throw InvalidArgumentError so that a bad value is a usage error (exit 2).
function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new InvalidArgumentError('expected a number from 0 to 65535');
  return port;
}

const SMTP_URL_FORM = 'expected smtp://[user:pass@]host[:port] or smtps://...';

function parseSmtpUrl(text: string): string {
  if (!isSmtpUrl(text)) throw new InvalidArgumentError(SMTP_URL_FORM);
  return text;
}

/** Resolves on the first SIGTERM or SIGINT. */
function shutdownSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

/** `clinic serve`: the public API on 127.0.0.1 unless --host says otherwise. */
export function registerServeCommand(program: Command, io: CliIo): void {
  subcommand(program, 'serve', 'serve the public API')
    .option('--host <address>', 'address to listen on (env CLINIC_HOST); anything but loopback exposes patient data to the network', process.env.CLINIC_HOST || '127.0.0.1')
    .option('--port <port>', 'port to listen on (env CLINIC_PORT, default 8080; 0 picks a free one)', parsePort)
    .option('--document-limit-mb <mb>', `largest document upload in MiB (env CLINIC_DOCUMENT_LIMIT_MB, default ${DEFAULT_DOCUMENT_LIMIT_BYTES / 1024 / 1024})`, parseMegabytes)
    .option('--smtp-url <url>', 'deliver email notifications through this SMTP server (env CLINIC_SMTP_URL); without it they stay pending', parseSmtpUrl)
    .option('--smtp-from <address>', 'sender of notification emails (env CLINIC_SMTP_FROM)', process.env.CLINIC_SMTP_FROM || 'clinic@localhost')
    .action(async (options: ServeOptions, command: Command) => {
      const port = optionOrEnv(command, options.port, 'CLINIC_PORT', parsePort, 8080);
      const smtpUrl = optionOrEnv<string | undefined>(command, options.smtpUrl, 'CLINIC_SMTP_URL', parseSmtpUrl, undefined);
      const documentLimitBytes = resolveDocumentLimitBytes(command, options.documentLimitMb);
      const logger = jsonLineLogger();
      const dataDir = resolve(options.data);
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      // Only one server per data directory; CLI commands may still run beside it.
      const lock = acquireInstanceLock(dataDir, { nativeBinding: options.nativeBinding });
      if (lock === undefined) {
        throw new Error(`another clinic server is already running on the data directory ${dataDir} (it holds ${LOCK_FILE}); stop it first`);
      }
      let db: Db;
      try {
        db = openDatabase(dataDir, { nativeBinding: options.nativeBinding });
      } catch (error) {
        lock.release();
        throw error;
      }
      // Listened for before the start line is logged: whoever waits for that line may signal at once.
      const stopRequested = shutdownSignal();
      let worker: DeliveryWorker | undefined;
      try {
        if (!hasApiKeys(db)) {
          // First run: a new user can call the API at once. Shown once, like every key.
          const first = createApiKey(db, { name: 'first key' });
          io.stdout(`No API key existed, so one was created. Store it now; it is not shown again:\n\n  ${first.key}\n\n`);
        }
        // Before listening: an upload that a crash cut off after committing its row gets its file.
        const recovery = await recoverInterruptedUploads(db, dataDir);
        if (recovery.completed + recovery.removed > 0) {
          logger.info({ event: 'uploads_recovered', completed: recovery.completed, removed_abandoned: recovery.removed });
        }
        const running = await startServer(
          db,
          { dataDir, jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES, documentLimitBytes, logger },
          options.host,
          port,
        );
        const exposed = !LOOPBACK.has(options.host);
        logger.info({
          event: 'listening',
          address: `http://${running.host.includes(':') ? `[${running.host}]` : running.host}:${running.port}${API_PREFIX}`,
          data_dir: dataDir,
          version: PROGRAM_VERSION,
          ...(exposed ? { warning: `listening on ${options.host}, not only on this computer: other machines on the network can reach the API` } : {}),
        });
        if (smtpUrl === undefined) {
          logger.info({ event: 'notifications', delivery: 'off', note: 'no --smtp-url: notifications stay pending (clinic notifications list)' });
        } else {
          worker = startDeliveryWorker(db, createSmtpMailer(smtpUrl, options.smtpFrom), { logger });
          // The host only: the URL may carry a password.
          logger.info({ event: 'notifications', delivery: 'smtp', smtp_host: new URL(smtpUrl).host });
        }
        const signal = await stopRequested;
        logger.info({ event: 'stopping', signal });
        await running.close(SHUTDOWN_GRACE_MS);
        // After the server, whose last requests may have queued notifications; before the
        // database, which a pass in progress still writes to.
        await worker?.stop();
        worker = undefined;
      } finally {
        await worker?.stop();
        // Closing the last connection checkpoints the WAL into clinic.db and removes it.
        db.close();
        lock.release();
      }
      logger.info({ event: 'stopped' });
    });
}

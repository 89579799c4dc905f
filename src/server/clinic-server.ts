import { hashWithNodeCrypto } from '../domain/audit/sha256.js';
import { buildUseCaseValidators } from '../domain/use-case.js';
import { closeSync, existsSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { tlsPaths } from '../domain/tls/tls-files.js';
import { caOfChain, certificatesOf, forgetServedEndpoint, isLoopbackName, recordServedEndpoint } from '../domain/tls/served-endpoint.js';
import { join } from 'node:path';
import { acquireInstanceLock, LOCK_FILE, type InstanceLock } from '../db/instance-lock.js';
import { quickCheckProblems } from '../db/maintenance.js';
import { repairFolderModes } from '../db/file-modes.js';
import { openDatabase, type Db } from '../db/open-database.js';
import { DATABASE_FILE, ensureDataDirectory } from '../db/data-directory.js';
import { sqliteErrorCode } from '../db/sqlite-result-codes.js';
import { timeZoneNotice } from './workers/time-zone-notice.js';
import { storageFault } from '../db/storage-errors.js';
import { createApiKey, hasApiKeys, type CreatedApiKey } from '../domain/api-keys.js';
import { recoverInterruptedUploads } from '../domain/documents/recover-uploads.js';
import { errors } from '../errors.js';
import { firstKeyFileFindings, permissionFindings } from '../domain/maintenance/check.js';
import { describeFailure } from '../domain/maintenance/failure-text.js';
import { upgradeOpenDatabase } from '../domain/maintenance/upgrade.js';
import { startDeliveryWorker, type DeliveryWorker } from './workers/notification-worker.js';
import { startReminderWorker } from './workers/reminder-worker.js';
import { startReplyWorker } from './workers/reply-worker.js';
import { recordServerChannels } from '../domain/reminders/reminder-channels.js';
import { startPurgeWorker } from './workers/purge-worker.js';
import type { PassLoop } from './workers/pass-loop.js';
import { createSmtpMailer, type SmtpMailer } from '../adapters/smtp-mailer.js';
import { sendSms } from '../adapters/sms-gateway-client.js';
import { httpWebhookSender } from '../adapters/http-webhook-sender.js';
import { startWebhookWorker, type WebhookWorker } from './workers/webhook-worker.js';
import { API_PREFIX, DEFAULT_JSON_BODY_LIMIT_BYTES, type DeskCommandRunner } from './config.js';
import type { Logger } from '../logger.js';
import {
  startBackupSchedule,
  type BackupSchedule,
  type BackupScheduleConfig,
  type BackupScheduleStatus,
} from './workers/backup-schedule.js';
import { startAuditCheckpoints } from './workers/audit-checkpoints.js';
import { CommitGroups } from './writes/commit-groups.js';
import { startHttpServer, type RunningHttpServer } from './connections/http-server.js';
import { EXPIRY_WARNING_DAYS, expiresSoon, findTlsFiles, loadServerTls, type ServerTls, type TlsFiles } from '../domain/tls/server-tls.js';
import { recordDataExport } from '../domain/audit/record-audit.js';
import { systemUserActor } from '../domain/audit/system-user.js';

/** Everything `clinic serve` decides before the server starts. */
export interface ClinicServerConfig {
  /** An absolute path. */
  dataDir: string;
  host: string;
  port: number;
  /** Further names a `Host` header may give (`--allowed-host`), normalised. */
  allowedHosts: readonly string[];
  /** Web origins whose pages may call the API (`--allowed-origin`), normalised. */
  allowedOrigins: readonly string[];
  documentLimitBytes: number;
  /** Email delivery of notifications; none: they stay pending. */
  smtp?: { url: string; from: string };
  logger: Logger;
  /** How long requests in flight get to finish at stop before their connections are cut. */
  shutdownGraceMs?: number;
  /** Verified backups on a schedule (`--backup-dir`); none: no backups are made. */
  backups?: BackupScheduleConfig;
  /** `--tls-cert` and `--tls-key`, absolute; none: the data directory's `tls/` files if there, else plain HTTP. */
  tls?: Omit<TlsFiles, 'source'>;
  /** `--insecure-http`: plain HTTP is served on an address off this PC too, instead of TLS_REQUIRED. */
  insecureHttp?: boolean;
  /** How often the audit trail's head is anchored (audit-checkpoints.ts); an hour unless a test says otherwise. */
  /** How the server runs a desk PC's commands (ServerConfig.deskCommands): `clinic serve` gives the program's command line. */
  deskCommands?: DeskCommandRunner;
  auditCheckpointEveryMs?: number;
  /** The pause between the reminder sender's passes; 15 s unless a test says otherwise. */
  reminderPassMs?: number;
}

/** A started server. */
export interface ClinicServer {
  /** The API's base URL, e.g. http://127.0.0.1:8080/api/public/v1 (https:// over TLS). */
  address: string;
  host: string;
  port: number;
  /** The key made because none existed (the first start): to be shown once. */
  firstKey?: CreatedApiKey;
  /** The backup schedule's state (for `GET /health`), or undefined without `--backup-dir`. */
  backupStatus(): BackupScheduleStatus | undefined;
  /**
   * Stops a backup being written and the webhook attempts in flight, finishes requests in flight
   * (at most the grace period), stops the notification worker, closes the database, releases the lock.
   */
  stop(): Promise<void>;
}

/**
 * Makes sure the data directory can be read and written by this user, before anything depends on
 * it: a new file is created and removed again (a read-only file system or a directory of another
 * user fails here, with the reason, instead of every write failing later).
 */
function probeDataDirectory(dataDir: string): void {
  const probe = join(dataDir, `.write-probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    unlinkSync(probe);
  } catch (error) {
    throw errors.dataDirectoryUnusable(dataDir, `it is not writable (${describeFailure(error)})`);
  }
}

/** Whether SQLite says the database file is damaged or is no database at all. */
const isDamagedFile = (error: unknown) => ['SQLITE_CORRUPT', 'SQLITE_NOTADB'].includes(sqliteErrorCode(error) ?? '');

/** Opens the database for the server (busy waits by timer), refusing a damaged or unusable one with its path and reason. */
function openServerDatabase(dataDir: string): Db {
  const path = join(dataDir, DATABASE_FILE);
  let db: Db;
  try {
    // An older schema is migrated by startServer, after the backup of it (upgradeOpenDatabase).
    db = openDatabase(dataDir, { busyWait: 'fail', olderSchema: 'keep', statements: 'ahead' });
  } catch (error) {
    if (isDamagedFile(error)) throw errors.databaseDamaged(path, describeFailure(error));
    if (storageFault(error) === 'failed' || storageFault(error) === 'full')
      throw errors.dataDirectoryUnusable(path, describeFailure(error));
    throw error;
  }
  try {
    // Reads every page: a damaged file is refused now, not discovered by a patient's request.
    const problems = quickCheckProblems(db, 1);
    if (problems.length > 0) throw errors.databaseDamaged(path, problems[0]!);
  } catch (error) {
    db.close();
    if (isDamagedFile(error)) throw errors.databaseDamaged(path, describeFailure(error));
    throw error;
  }
  return db;
}

/**
 * The TLS serve is to use (findTlsFiles), read and checked against the address it listens on
 * (loadServerTls), or none: plain HTTP, which an address off this PC gets only with
 * `--insecure-http` (else TLS_REQUIRED).
 */
function serverTls(config: ClinicServerConfig, now: Date): ServerTls | undefined {
  const files = findTlsFiles(config.dataDir, config.tls);
  if (files !== undefined) return withDataCa(loadServerTls(files, config.host, now, config.allowedHosts), config.dataDir);
  if (!isLoopback(config.host) && config.insecureHttp !== true) throw errors.tlsRequired(config.host);
  return undefined;
}

/**
 * From 1.3.0 `serve` presents the data directory's CA after its certificate (`tls/ca.pem`), so a
 * desk PC can check it by the fingerprint `desk pair` printed; given files keep their own chain.
 */
function withDataCa(tls: ServerTls, dataDir: string): ServerTls {
  const ca = tlsPaths(dataDir).ca;
  if (tls.files.source !== 'data' || !existsSync(ca) || certificatesOf(tls.certificatePem).length > 1) return tls;
  return { ...tls, certificatePem: Buffer.concat([tls.certificatePem, Buffer.from('\n'), readFileSync(ca)]) };
}

/** Logs the certificate served, and warns while it is in its last EXPIRY_WARNING_DAYS. */
function logTls(tls: ServerTls, logger: Logger, now: Date): void {
  const notAfter = tls.notAfter.toISOString();
  logger.info({ event: 'tls', certificate: tls.files.certificate, key: tls.files.key, names: tls.names, not_after: notAfter });
  if (expiresSoon(tls, now)) {
    logger.error({
      event: 'warning',
      warning: `the TLS certificate ${tls.files.certificate} expires at ${notAfter}, in less than ${EXPIRY_WARNING_DAYS} days; ${
        tls.files.source === 'data' ? 'run `clinic tls init` again for a new one' : 'replace it'
      }, then restart serve`,
    });
  }
}

/** Listens, turning "address in use" and the like into a coded refusal. */
async function listen(db: Db, commits: CommitGroups, config: ClinicServerConfig, tls: ServerTls | undefined): Promise<RunningHttpServer> {
  try {
    return await startHttpServer(
      db,
      commits,
      {
        dataDir: config.dataDir,
        jsonBodyLimitBytes: DEFAULT_JSON_BODY_LIMIT_BYTES,
        documentLimitBytes: config.documentLimitBytes,
        // A name the server's certificate covers is one the clinic gave it (`tls init --name`):
        // clients use it, and a page rebinding a name of its own would fail TLS for it anyway.
        allowedHosts: [...config.allowedHosts, ...(tls?.hostNames ?? [])],
        allowedOrigins: config.allowedOrigins,
        logger: config.logger,
        ...(config.deskCommands === undefined ? {} : { deskCommands: config.deskCommands }),
      },
      config.host,
      config.port,
      tls,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
      throw errors.cannotListen(`${config.host}:${config.port}`, describeFailure(error));
    }
    throw error;
  }
}

/**
 * Starts the whole server over a data directory: checks the directory, takes its instance lock,
 * opens and quick-checks the database, finishes uploads a crash cut off, listens, and only then
 * issues the first API key if none exists (a start that fails creates nothing), and starts the
 * delivery of email notifications. Logs what it did and what looks wrong.
 */
export async function startClinicServer(config: ClinicServerConfig): Promise<ClinicServer> {
  const { dataDir, logger } = config;
  const startedAt = new Date();
  // The audit trail's hashes by node:crypto, which the server loads anyway: ten times the JavaScript's pace.
  hashWithNodeCrypto();
  // Every use case's validators now, so that no request pays for building them (a command builds its one's when run).
  buildUseCaseValidators();
  // First, before anything is made: a start that would serve patient data in clear text, or
  // with a certificate clients would refuse, is refused as it is typed.
  const tls = serverTls(config, startedAt);
  // A --data that is no folder, a link planted in it, or a 0-byte clinic.db is refused before anything is made there.
  if (ensureDataDirectory(dataDir) === 'empty') throw errors.databaseEmpty(join(dataDir, DATABASE_FILE));
  probeDataDirectory(dataDir);
  // A folder a crash left without its group's bits (made by an older program, or a mkdir whose
  // chmod never came) would refuse the desk group's uploads until someone ran chmod.
  for (const folder of repairFolderModes(dataDir))
    logger.info({ event: 'folder_mode_repaired', folder: folder.path, from: folder.from, to: folder.to });
  for (const finding of [...permissionFindings(dataDir), ...firstKeyFileFindings(dataDir)])
    logger.error({ event: 'warning', warning: finding });

  const lock: InstanceLock | undefined = acquireInstanceLock(dataDir);
  if (lock === undefined) throw errors.serverAlreadyRunning(dataDir, LOCK_FILE);
  const created = !existsSync(join(dataDir, DATABASE_FILE));
  let db: Db | undefined;
  let worker: DeliveryWorker | undefined;
  let mailer: SmtpMailer | null = null;
  let reminders: PassLoop | undefined;
  let replies: PassLoop | undefined;
  let purges: PassLoop | undefined;
  let webhooks: WebhookWorker | undefined;
  let backups: BackupSchedule | undefined;
  try {
    db = openServerDatabase(dataDir);
    // A database an older program left is upgraded as `clinic upgrade` does it: a verified backup first.
    const upgrade = await upgradeOpenDatabase(db, dataDir);
    if (upgrade.upgraded) {
      logger.info({
        event: 'database_upgraded',
        data_dir: upgrade.data_dir,
        schema_version_before: upgrade.schema_version_before,
        schema_version: upgrade.schema_version,
        backup: upgrade.backup!.file,
      });
    }
    if (created) {
      logger.info({
        event: 'database_created',
        data_dir: dataDir,
        note: "no clinic database was here, so a new, empty one was made; if the clinic's data is elsewhere, stop and start again with --data",
      });
    }
    logger.info(timeZoneNotice(db));
    const recovery = await recoverInterruptedUploads(db, dataDir);
    if (recovery.completed + recovery.removed > 0) {
      logger.info({
        event: 'uploads_recovered',
        completed: recovery.completed,
        removed_abandoned: recovery.removed,
        removed_bytes: recovery.removedBytes,
      });
    }
    // Every request's database work, and the worker's, runs through these (group commit).
    const commits = new CommitGroups(db);
    const running = await listen(db, commits, config, tls);
    if (tls !== undefined) logTls(tls, logger, startedAt);
    recordServedEndpoint(dataDir, {
      host: running.host,
      port: running.port,
      tls: tls !== undefined,
      names: tls?.hostNames ?? [],
      ca_sha256: tls === undefined ? null : (caOfChain(tls.certificatePem)?.fingerprint256 ?? null),
    });
    const openDb = db;
    // Shown only once it is stored.
    const firstKey = hasApiKeys(db) ? undefined : await commits.run('write', () => createApiKey(openDb, { name: 'first key' }));
    const host = running.host.includes(':') ? `[${running.host}]` : running.host;
    const address = `${tls === undefined ? 'http' : 'https'}://${host}:${running.port}${API_PREFIX}`;
    await commits.run('write', () => recordServerChannels(openDb, config.smtp === undefined ? null : new URL(config.smtp.url).host));
    webhooks = startWebhookWorker(db, commits, running.changes, httpWebhookSender(), { logger });
    const webhookWorker = webhooks;
    // One SMTP transport for notifications and reminders; SMS through the gateway once one is set.
    mailer = config.smtp === undefined ? null : createSmtpMailer(config.smtp.url, config.smtp.from);
    const channels = { mailer, sendSms };
    worker = startDeliveryWorker(db, commits, channels, { logger });
    reminders = startReminderWorker(db, commits, channels, {
      logger,
      ...(config.reminderPassMs === undefined ? {} : { intervalMs: config.reminderPassMs }),
    });
    replies = startReplyWorker(db, commits, { logger });
    purges = startPurgeWorker(db, dataDir, commits, { logger });
    if (config.backups !== undefined) {
      // The schedule's backups are the server's own: the audit trail names the user it runs as.
      const record = () => recordDataExport(commits, openDb, systemUserActor());
      backups = await startBackupSchedule(dataDir, config.backups, logger, record);
    }
    const schedule = backups;
    const checkpoints = startAuditCheckpoints(openDb, commits, dataDir, logger, config.auditCheckpointEveryMs);
    let stopping: Promise<void> | undefined;
    return {
      address,
      host: running.host,
      port: running.port,
      ...(firstKey === undefined ? {} : { firstKey }),
      backupStatus: () => schedule?.status(),
      stop() {
        stopping ??= (async () => {
          try {
            // A backup being written is abandoned at once (its staging folder removed): half
            // done it is worth nothing, and the next start writes one. Its connection closes
            // before the database's last one below. Webhook attempts in flight get a short grace
            // to be answered, beside the requests' (STOP_GRACE_MS); the rest are sent again after
            // the next start.
            await Promise.all([running.close(config.shutdownGraceMs), schedule?.stop(), webhookWorker.stop()]);
            // After the server, whose last requests may have queued notifications; before the
            // database, which a pass in progress still writes to.
            await Promise.all([worker?.stop(), reminders?.stop(), replies?.stop(), purges?.stop()]);
            mailer?.close();
            // The trail as the server leaves it, once nothing more is recorded.
            await checkpoints.stop();
          } finally {
            // A group still open is committed first: its members are waiting to be answered.
            commits.flush();
            // Closing the last connection checkpoints the WAL into clinic.db and removes it.
            openDb.close();
            forgetServedEndpoint(dataDir);
            lock.release();
          }
        })();
        return stopping;
      },
    };
  } catch (error) {
    await backups?.stop();
    await webhooks?.stop();
    await worker?.stop();
    await reminders?.stop();
    await replies?.stop();
    await purges?.stop();
    mailer?.close();
    db?.close();
    lock.release();
    throw error;
  }
}

/** Whether `host` keeps the API on this computer: localhost, ::1, or an address of 127.0.0.0/8. */
export function isLoopback(host: string): boolean {
  return isLoopbackName(host);
}

import { deskCommandsOfThisProgram } from '../desk-command-runner.js';
import { join, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { isSmtpUrl } from '../../adapters/smtp-url.js';
import { normalizeHostName, normalizeOrigin } from '../../network-names.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../domain/documents/document-limit.js';
import { describeFailure } from '../../domain/maintenance/failure-text.js';
import { FIRST_KEY_FILE, writeFirstKeyFile } from '../../domain/maintenance/first-key-file.js';
import { jsonLineLogger, type Logger } from '../../logger.js';
import { PROGRAM_VERSION } from '../../version.js';
import { optionOrEnv, parseMegabytes, resolveDocumentLimitBytes } from '../env-options.js';
import {
  DEFAULT_BACKUP_EVERY,
  DEFAULT_BACKUP_KEEP,
  parseFolder,
  parseInterval,
  parseKeep,
  resolveBackupSchedule,
  type BackupOptions,
} from '../backup-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';

interface ServeOptions extends CommonOptions, BackupOptions {
  host?: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  port?: number;
  documentLimitMb?: number;
  smtpUrl?: string;
  smtpFrom?: string;
  tlsCert?: string;
  tlsKey?: string;
  insecureHttp?: boolean;
}

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

/** Each value of a repeatable option, parsed, after those before it. */
const repeated =
  <T>(parse: (text: string) => T) =>
  (text: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(text)];

/** An `--allowed-host` value: a host name or an IP address, without a port. */
function parseHostName(text: string): string {
  const name = normalizeHostName(text.trim());
  if (name === undefined) throw new InvalidArgumentError('expected a host name or an IP address, without a port or a path');
  return name;
}

/** An `--allowed-origin` value: `http(s)://host[:port]`, as a browser sends it in Origin. */
function parseOrigin(text: string): string {
  const origin = normalizeOrigin(text.trim());
  if (origin === undefined)
    throw new InvalidArgumentError('expected an origin such as https://portal.example:8443 (scheme, host and port only)');
  return origin;
}

/** A comma-separated environment variable of values of a repeatable option. */
const commaSeparated =
  <T>(parse: (text: string) => T) =>
  (text: string): T[] =>
    text
      .split(',')
      .filter((item) => item.trim() !== '')
      .map(parse);

const SMTP_URL_FORM = 'expected smtp://[user:pass@]host[:port] or smtps://...';

function parseSmtpUrl(text: string): string {
  if (!isSmtpUrl(text)) throw new InvalidArgumentError(SMTP_URL_FORM);
  return text;
}

/**
 * `--tls-cert` and `--tls-key` (else CLINIC_TLS_CERT and CLINIC_TLS_KEY) as absolute paths: both
 * or neither, else a usage error; neither leaves the choice to the server (the data directory's
 * `tls/` files, else plain HTTP).
 */
function resolveTlsFiles(command: Command, options: ServeOptions): { certificate: string; key: string } | undefined {
  const certificate = optionOrEnv<string | undefined>(command, options.tlsCert, 'CLINIC_TLS_CERT', (text) => text, undefined);
  const key = optionOrEnv<string | undefined>(command, options.tlsKey, 'CLINIC_TLS_KEY', (text) => text, undefined);
  if (certificate === undefined && key === undefined) return undefined;
  if (certificate === undefined || key === undefined) {
    return command.error('error: --tls-cert and --tls-key go together: give both (or CLINIC_TLS_CERT and CLINIC_TLS_KEY), or neither', {
      exitCode: 2,
    });
  }
  return { certificate: resolve(certificate), key: resolve(key) };
}

/**
 * The ways serve is asked to stop: SIGTERM and SIGINT (Ctrl+C); on Windows also SIGBREAK
 * (Ctrl+Break) and SIGHUP (its console window closed); and, when `clinic autostart run` started it,
 * a stop message on the IPC channel or the channel's end (the supervisor itself was ended).
 */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', ...(process.platform === 'win32' ? ['SIGBREAK'] : [])] as const;

/** Resolves with the reason on the first request to stop. */
export function stopRequested(): Promise<string> {
  return new Promise((resolve) => {
    const onStop = (reason: string) => {
      for (const signal of STOP_SIGNALS) process.off(signal, onStop);
      process.off('message', onMessage);
      process.off('disconnect', onDisconnect);
      if (process.connected) process.disconnect?.();
      resolve(reason);
    };
    const onMessage = (message: unknown) => {
      const stop = (message as { stop?: unknown } | null)?.stop;
      if (stop !== undefined) onStop(`service: ${String(stop)}`);
    };
    const onDisconnect = () => onStop('service ended');
    for (const signal of STOP_SIGNALS) process.on(signal, onStop);
    if (process.send !== undefined) {
      process.on('message', onMessage);
      process.on('disconnect', onDisconnect);
    }
  });
}

/**
 * Whether serve runs as a service, whose output goes to a log rather than to a person: systemd
 * sets INVOCATION_ID in a service's environment, and `clinic autostart run` (the Windows
 * scheduled task, or any service manager) starts serve with an IPC channel.
 */
function runsAsService(): boolean {
  return process.env.INVOCATION_ID !== undefined || process.send !== undefined;
}

/**
 * A service's first key goes to a file only the service user may read (first-key-file.ts), not
 * to its log; the log names the file, never the key. If the file cannot be written the key is
 * lost, which the log says, with the way to make another: the server runs on.
 */
async function leaveFirstKeyInFile(dataDir: string, key: string, logger: Logger): Promise<void> {
  try {
    const file = await writeFirstKeyFile(dataDir, key);
    logger.info({
      event: 'first_api_key',
      file,
      note: 'no API key existed, so one was created and written to this file, which only this user may read: store the key and delete the file',
    });
  } catch (error) {
    logger.error({
      event: 'first_api_key_lost',
      file: join(dataDir, FIRST_KEY_FILE),
      error: describeFailure(error),
      note: 'no API key existed, so one was created, but it could not be written down; make another with `clinic api-key create`',
    });
  }
}

/** `clinic serve`: the public API on 127.0.0.1 unless --host says otherwise. */
export function registerServeCommand(program: Command, io: CliIo): void {
  subcommand(program, 'serve', 'serve the public API')
    .option(
      '--host <address>',
      'address to listen on (env CLINIC_HOST, default 127.0.0.1); anything but loopback exposes patient data to the network, and needs TLS (clinic tls init, or --tls-cert and --tls-key) or --insecure-http',
    )
    .option('--port <port>', 'port to listen on (env CLINIC_PORT, default 8080; 0 picks a free one)', parsePort)
    .option(
      '--allowed-host <name>',
      "another name clients may reach this server by (its Host header), e.g. the PC's name on the network; repeatable (env CLINIC_ALLOWED_HOSTS, comma-separated). localhost, 127.0.0.1, [::1] and the --host address are always allowed",
      repeated(parseHostName),
    )
    .option(
      '--allowed-origin <origin>',
      'a web origin whose pages may call the API from a browser (CORS), e.g. https://portal.example; repeatable (env CLINIC_ALLOWED_ORIGINS, comma-separated). Without it, only the docs page served here',
      repeated(parseOrigin),
    )
    .option(
      '--document-limit-mb <mb>',
      `largest document upload in MiB (env CLINIC_DOCUMENT_LIMIT_MB, default ${DEFAULT_DOCUMENT_LIMIT_BYTES / 1024 / 1024})`,
      parseMegabytes,
    )
    .option(
      '--smtp-url <url>',
      'deliver email notifications through this SMTP server (env CLINIC_SMTP_URL); without it they stay pending',
      parseSmtpUrl,
    )
    .option('--smtp-from <address>', 'sender of notification emails (env CLINIC_SMTP_FROM, default clinic@localhost)')
    .option(
      '--backup-dir <dir>',
      'write a verified backup into this folder on a schedule (env CLINIC_BACKUP_DIR); without it, none',
      parseFolder,
    )
    .option(
      '--backup-every <duration>',
      `time between backups, e.g. 24h, 30m (env CLINIC_BACKUP_EVERY, default ${DEFAULT_BACKUP_EVERY})`,
      parseInterval,
    )
    .option('--backup-keep <n>', `how many backups to keep (env CLINIC_BACKUP_KEEP, default ${DEFAULT_BACKUP_KEEP})`, parseKeep)
    .option(
      '--tls-cert <file>',
      "serve HTTPS with this certificate (PEM; env CLINIC_TLS_CERT); default: the data directory's tls/server.pem if `clinic tls init` made one, else plain HTTP",
    )
    .option('--tls-key <file>', 'the private key of --tls-cert (PEM; env CLINIC_TLS_KEY)')
    .option('--insecure-http', 'serve plain HTTP on an address other computers reach (--host), which is otherwise refused as TLS_REQUIRED')
    .action(async (options: ServeOptions, command: Command) => {
      // The environment is read here, when serve runs, never while the command tree is built.
      const host = optionOrEnv(command, options.host, 'CLINIC_HOST', (text) => text, '127.0.0.1');
      const port = optionOrEnv(command, options.port, 'CLINIC_PORT', parsePort, 8080);
      const allowedHosts = optionOrEnv(command, options.allowedHost, 'CLINIC_ALLOWED_HOSTS', commaSeparated(parseHostName), []);
      const allowedOrigins = optionOrEnv(command, options.allowedOrigin, 'CLINIC_ALLOWED_ORIGINS', commaSeparated(parseOrigin), []);
      const smtpUrl = optionOrEnv<string | undefined>(command, options.smtpUrl, 'CLINIC_SMTP_URL', parseSmtpUrl, undefined);
      const smtpFrom = optionOrEnv(command, options.smtpFrom, 'CLINIC_SMTP_FROM', (text) => text, 'clinic@localhost');
      const documentLimitBytes = resolveDocumentLimitBytes(command, options.documentLimitMb);
      const logger = jsonLineLogger();
      const dataDir = resolve(options.data);
      const backups = resolveBackupSchedule(command, options, dataDir);
      const tls = resolveTlsFiles(command, options);
      // Listened for before the server starts: whoever waits for the start line may signal at once.
      const stopping = stopRequested();
      // Loaded here, not with the command tree: a desk command never pays for the server's modules.
      const { isLoopback, startClinicServer } = await import('../../server/clinic-server.js');
      const { favourMemoryOverSpeed } = await import('../../server/memory-mode.js');
      const server = await startClinicServer({
        dataDir,
        ...(deskCommandsOfThisProgram() === undefined ? {} : { deskCommands: deskCommandsOfThisProgram()! }),
        host,
        port,
        allowedHosts,
        allowedOrigins,
        documentLimitBytes,
        ...(smtpUrl === undefined ? {} : { smtp: { url: smtpUrl, from: smtpFrom } }),
        logger,
        shutdownGraceMs: SHUTDOWN_GRACE_MS,
        ...(backups === undefined ? {} : { backups }),
        ...(tls === undefined ? {} : { tls }),
        insecureHttp: options.insecureHttp === true,
      });
      // Only now: what the start loaded came from code caches, which the flag would have voided.
      favourMemoryOverSpeed();
      if (server.firstKey !== undefined && runsAsService()) {
        await leaveFirstKeyInFile(dataDir, server.firstKey.key, logger);
      } else if (server.firstKey !== undefined) {
        // First run: a new user can call the API at once. Shown once, like every key.
        io.stdout(`No API key existed, so one was created. Store it now; it is not shown again:\n\n  ${server.firstKey.key}\n\n`);
      }
      logger.info({
        event: 'listening',
        address: server.address,
        data_dir: dataDir,
        version: PROGRAM_VERSION,
        ...(allowedHosts.length === 0 ? {} : { allowed_hosts: allowedHosts }),
        ...(allowedOrigins.length === 0 ? {} : { allowed_origins: allowedOrigins }),
        ...(isLoopback(host)
          ? {}
          : { warning: `listening on ${host}, not only on this computer: other machines on the network can reach the API` }),
      });
      if (smtpUrl === undefined) {
        logger.info({
          event: 'notifications',
          delivery: 'off',
          note: 'no --smtp-url: e-mail notifications stay pending (clinic notifications list); SMS ones go once a gateway is set (clinic sms-gateway set)',
        });
      } else {
        // The host only: the URL may carry a password.
        logger.info({ event: 'notifications', delivery: 'smtp', smtp_host: new URL(smtpUrl).host });
      }
      if (backups === undefined) {
        logger.info({
          event: 'backups',
          schedule: 'off',
          note: 'no --backup-dir: serve writes no backups (docs/install.md, "Back up and restore")',
        });
      }
      const signal = await stopping;
      logger.info({ event: 'stopping', signal });
      await server.stop();
      logger.info({ event: 'stopped' });
    });
}

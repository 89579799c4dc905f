import type { Command } from 'commander';
import { resolve } from 'node:path';
import { LIST_DEVICES, PAIR_DEVICE, REVOKE_DEVICE, type Device, type PairedDevice } from '../../domain/people/devices.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { deskUrlOf, isLoopbackName, runningServerEndpoint } from '../../domain/tls/served-endpoint.js';
import { readCaFingerprint } from '../../domain/tls/tls-files.js';
import { errors } from '../../errors.js';
import { deskTable, localDateTime } from '../desk-format.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { wrapLines } from '../report-error.js';
import { subcommand } from '../subcommand.js';
import { emit } from '../output.js';
import { deskStatus, describeStatus, joinServer, parseFingerprint, parseServerUrl } from '../desk-pc/desk-join.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** Where a new desk PC finds the server: its URL and the fingerprint of the CA it presents. */
interface ServerToJoin {
  url: string;
  caSha256: string;
}

/**
 * The server a new desk PC joins (interface 1.3.0, "Pairing"): `--url`, else the running server's
 * certificate's first DNS name but localhost (else its first address off this PC) and its port;
 * the CA's fingerprint the server presents (`tls/ca.pem`'s when no server runs). No server of
 * this data directory serving HTTPS beyond this PC, without --url: SERVER_NOT_ON_NETWORK.
 */
function serverToJoin(dataDir: string, givenUrl: string | undefined): ServerToJoin {
  const running = runningServerEndpoint(dataDir);
  const onNetwork = running !== undefined && running.tls && !isLoopbackName(running.host) ? running : undefined;
  const url = givenUrl ?? (onNetwork === undefined ? undefined : deskUrlOf(onNetwork));
  const caSha256 = onNetwork?.ca_sha256 ?? running?.ca_sha256 ?? readCaFingerprint(dataDir);
  if (url === undefined || caSha256 === null || caSha256 === undefined) throw errors.serverNotOnNetwork();
  return { url: url.replace(/\/+$/, ''), caSha256 };
}

/** The line to type on the new PC. */
const joinCommand = (server: ServerToJoin, code: string) => `clinic desk join ${server.url} ${code} --ca-sha256 ${server.caSha256}`;

/** A device's state as the desk says it. */
function stateOf(device: Device, timeZone: string): string {
  if (device.state === 'pending') return `waiting to join (code valid until ${localDateTime(device.code_expires_at!, timeZone)})`;
  if (device.state === 'expired') return 'code expired: pair again';
  if (device.state === 'revoked') return `revoked ${localDateTime(device.revoked_at!, timeZone)}`;
  return 'joined';
}

/** `clinic desk pair|list|revoke` on the server PC. */
export function registerDeskCommands(program: Command, io: CliIo): void {
  const group = program.command('desk').description('the desk PCs of the clinic: pair, list, revoke (server PC); join, status (desk PC)');
  registerDeskPcCommands(group, io);

  subcommand(group, 'pair', 'pair a new desk PC: prints the line to type there, valid 10 minutes, once')
    .option('--name <name>', 'the PC\'s name, unique in any case (default "Desk N")')
    .option('--url <url>', "the https:// URL the PC reaches this server by (default: the running server's)")
    .action(async (options: CommonOptions & { name?: string; url?: string }) => {
      let server: ServerToJoin | undefined;
      await runUseCaseCommand(io, options, PAIR_DEVICE, {
        request: () => {
          server = serverToJoin(resolve(options.data), options.url);
          return { body: options.name === undefined ? {} : { name: options.name } };
        },
        json: ({ device, code }: PairedDevice) => ({
          device_id: device.id,
          name: device.name,
          code,
          expires_at: device.code_expires_at,
          url: server!.url,
          ca_sha256: server!.caSha256,
          command: joinCommand(server!, code),
        }),
        print: ({ device, code }, db) =>
          wrapLines(
            `Desk PC "${device.name}" paired. On that PC, as the user who works there (no admin rights needed), type this ` +
              `line before ${localDateTime(device.code_expires_at!, clinicTimeZone(db))}; it works once:`,
          ) + `\n\n  ${joinCommand(server!, code)}\n`,
      });
    });

  subcommand(group, 'list', 'list the desk PCs, their state and when each was last seen').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, LIST_DEVICES, {
      request: () => ({}),
      print(devices, db) {
        const timeZone = clinicTimeZone(db);
        return deskTable(
          [{ header: 'Name', shrink: true }, { header: 'State' }, { header: 'PC' }, { header: 'Last seen' }, { header: 'Version' }],
          devices.map((device) => [
            device.name,
            stateOf(device, timeZone),
            device.host_name ?? '',
            device.last_seen_at === null ? 'never' : `${localDateTime(device.last_seen_at, timeZone)} from ${device.last_address}`,
            device.desk_version ?? '',
          ]),
          'No desk PCs yet: pair one with `clinic desk pair --name NAME`.',
        );
      },
    });
  });

  subcommand(group, 'revoke', 'revoke a desk PC at once: its sessions end and its next request is refused')
    .argument('<name>', "the PC's name (any case) or id")
    .action(async (device: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, REVOKE_DEVICE, {
        request: () => ({ path: { device } }),
        json: ({ device }) => device,
        print: ({ device, changed }) =>
          wrapLines(
            changed
              ? `Desk PC "${device.name}" revoked: its sessions have ended and its next request is refused. To use it again, pair it anew under another name.\n`
              : `Desk PC "${device.name}" was revoked already.\n`,
          ),
      });
    });
}

/** `clinic desk join URL CODE --ca-sha256 FP` and `clinic desk status`, on a desk PC. */
export function registerDeskPcCommands(group: Command, io: CliIo): void {
  subcommand(group, 'join', 'make this PC a desk of the server: the line `clinic desk pair` printed there')
    .argument('<url>', 'the server, https://HOST:PORT', parseServerUrl)
    .argument('<code>', 'the pairing code, XXXX-XXXX-XXXX')
    .requiredOption(
      '--ca-sha256 <fingerprint>',
      "the SHA-256 fingerprint of the clinic's CA, as printed (colons or not, any case)",
      parseFingerprint,
    )
    .action(async (url: URL, code: string, options: CommonOptions & { caSha256: string }) => {
      const joined = await joinServer(url, code, options.caSha256);
      emit(
        io,
        options,
        joined,
        () =>
          wrapLines(
            `This PC is now the desk PC "${joined.device_name}" of ${joined.server_url} (clinic ${joined.server_version}). ` +
              'Log in with: clinic login --as NAME',
          ) + '\n',
      );
    });

  subcommand(group, 'status', "this desk PC's server, its person, and how long the server takes to answer").action(
    async (options: CommonOptions) => {
      const status = await deskStatus();
      emit(io, options, status.status, () => describeStatus(status));
      // The status is printed all the same, with the server's fields null; then why (exit 3).
      if (status.unreachable !== undefined) throw status.unreachable;
    },
  );
}

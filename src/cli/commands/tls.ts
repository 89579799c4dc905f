import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { TlsInitResult } from '../../domain/tls/init-tls.js';
import type { parseTlsName, TlsName } from '../../domain/tls/tls-names.js';
import { localShortDate } from '../desk-format.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { warnGivenTo } from '../given-files.js';

interface TlsInitOptions extends CommonOptions {
  name?: string[];
  newCa?: boolean;
}

/** A `--name`, after those before it (read in the action, with the rest of the TLS code). */
const addName = (text: string, previous: string[] | undefined): string[] => [...(previous ?? []), text];

/**
 * The `--name`s as the certificate will carry them; one that is neither a host name nor an IP
 * address is a usage error (exit 2), worded as commander words a bad option value.
 */
function parseNames(command: Command, texts: readonly string[], parse: typeof parseTlsName): TlsName[] {
  return texts.map((text) => {
    const { name, reason } = parse(text);
    if (name !== undefined) return name;
    return command.error(`error: option '--name <name>' argument '${text}' is invalid. ${reason ?? ''}`, { exitCode: 2 });
  });
}

/** What `tls init` did, for the person who set it up: the files, the names, the dates (this PC's), and what the other PCs need. */
function describeTlsInit(result: TlsInitResult): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const caLine = result.ca_created
    ? `Made a private CA for this clinic: ${result.ca_file} (valid until ${localShortDate(result.ca_not_after, zone)}).`
    : `Kept the clinic's private CA: ${result.ca_file} (valid until ${localShortDate(result.ca_not_after, zone)}).`;
  return [
    caLine,
    `Made a server certificate for ${result.names.join(', ')}, valid until ${localShortDate(result.not_after, zone)}:`,
    `  ${result.server_certificate_file} and its key ${result.server_key_file}`,
    '`clinic serve` uses it from its next start (restart it if it runs): its port then speaks HTTPS,',
    'and plain HTTP to programs on this PC only (http://127.0.0.1 and http://[::1] keep working);',
    'plain HTTP from another PC gets a 400 naming the https:// address.',
    '',
    "Other PCs trust this server once they install the CA's certificate,",
    `  ${result.ca_file}`,
    'whose SHA-256 fingerprint is',
    `  ${result.ca_sha256}`,
    'Compare it with the one the other PC shows before trusting the file (docs/install.md, "Serve the',
    'clinic\'s network over HTTPS"). ca-key.pem never leaves this PC.',
    ...(result.ca_replaced ? ['This CA replaces the earlier one: every PC that trusted that one must install this ca.pem.'] : []),
    '',
  ].join('\n');
}

/** `clinic tls init`: the private CA and the server certificate that `serve` then uses (docs/install.md). */
export function registerTlsCommands(program: Command, io: CliIo): void {
  const tls = program.command('tls').description("HTTPS for clinic serve: the clinic's private CA and the server's certificate");
  subcommand(
    tls,
    'init',
    "make the clinic's private CA (once) and a new server certificate in the data directory's tls folder, for the names given and localhost, 127.0.0.1 and ::1",
  )
    .option(
      '--name <name>',
      'a name or IP address other PCs reach this PC by (its name on the network, its LAN address); repeatable',
      addName,
    )
    .option('--new-ca', 'replace the CA as well; every PC that trusts the old one must then install the new ca.pem')
    .action(async (options: TlsInitOptions, command: Command) => {
      // Loaded here, not with the command tree: the X.509 library (and node:net) are for this command alone.
      const [{ initTls }, tlsNames] = await Promise.all([import('../../domain/tls/init-tls.js'), import('../../domain/tls/tls-names.js')]);
      const names = parseNames(command, options.name ?? [], tlsNames.parseTlsName);
      const dataDir = resolve(options.data);
      const result = await initTls(dataDir, names, {
        newCa: options.newCa === true,
        gaveTo: (owner) => warnGivenTo(io, 'tls init', dataDir, owner),
      });
      emit(io, options, result, () => describeTlsInit(result));
    });
}

import type { DeskCommandAnswer } from '../../server/config.js';
import { deskPcRefusal, deskRowOf } from '../desk-roles.js';
import { accessSync, constants, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DESK_COMMAND_FILE_OPTIONS } from '../../domain/desk/desk-command-files.js';
import { rewriteOptions, withOption, type TypedOption } from '../../domain/desk/command-line-options.js';
import { readFailure } from '../../domain/named-files.js';
import { parseFilePath } from '../input-file.js';
import { auditExportPrintout } from '../audit-export-printout.js';
import { writtenExportPrintout } from '../patient-export-printout.js';
import { emit } from '../output.js';
import { exportAuditPages } from './audit-export.js';
import { errors } from '../../errors.js';
import { EXIT } from '../report-error.js';
import { parseTargetPath } from '../target-path.js';
import { downloadTo } from './download.js';
import type { CliIo } from '../io.js';
import { isDeskPc, readDeskFile } from './desk-file.js';
import { DeskConnection, newDeskKey } from './desk-connection.js';

/**
 * A command typed at a desk PC (interface 1.3.0, "Commands on a desk PC"): run on the server as
 * the person logged in here, printing what the server printed, with its exit code. The desk's
 * own commands (its version, help, login, logout, whoami, set-pin, desk join and status) run here.
 */

/** Commands that only read: sent again after a lost answer as they are, without a key. */
const READS = new Set([
  'doctor list',
  'service list',
  'module list',
  'settings show',
  'patient find',
  'patient show',
  'appointment list',
  'appointment show',
  'document list',
  'invoice list',
  'invoice show',
  'report day',
  'notifications list',
  'audit list',
  'audit verify',
  // It writes a file here, from pages the desk PC reads itself; on the server it changes nothing.
  'audit export',
  'api-key list',
  'webhook list',
  'staff list',
  'desk list',
]);

/**
 * Commands whose own --idempotency-key keeps a payment's key for ever (1.0.0's rule): the key goes
 * in their command line too. Only these: the other commands that take a key keep its answer 24
 * hours, as the desk command's own answer under that key does, which a key stored by the command
 * itself would displace (the resend would then be IDEMPOTENCY_KEY_REUSED).
 */
const KEYED = new Set(['record-payment', 'refund']);

/** Commands that print a secret once: never answered twice, so no key (api-key create, webhook add, staff add, reset-pin). */
const PRINTS_A_SECRET = new Set(['api-key create', 'webhook add', 'staff add', 'staff reset-pin']);

/** `--idempotency-key K` taken out of the command line (it goes as the request's header), and `--data` (the server's is its own). */
function takeIdempotencyKey(argv: readonly string[]): { line: string[]; key: string | undefined } {
  let key: string | undefined;
  const line = rewriteOptions(argv, ['idempotency-key', 'data'], (option) => {
    if (option.name === 'data') return [];
    if (option.value === undefined) return option.words;
    key = option.value;
    return [];
  });
  return { line, key };
}

/**
 * Runs `argv` for this desk PC: undefined when it is not one (or the command is the desk's own,
 * which then runs here as usual), else the exit code of the command run on the server.
 */
export async function runAtDeskPc(argv: readonly string[], io: CliIo, commandPath: () => Promise<string>): Promise<number | undefined> {
  if (!isDeskPc()) return undefined;
  const path = await commandPath();
  const refusal = deskPcRefusal(path);
  if (path === '' || deskRowOf(path) === 'no-login' || path === 'desk join' || path === 'desk status') return undefined;
  if (refusal === 'server-pc') throw errors.serverPcOnly(path, readDeskFile().server_url);
  if (refusal === 'local') throw errors.runOnDeskPc(path);
  const { line, key } = takeIdempotencyKey(argv);
  const saving = path === 'document save' ? savedFile(line) : undefined;
  if (saving !== undefined && 'usage' in saving) {
    io.stderr(`error: ${saving.usage}\nsee \`clinic document save --help\`\n`);
    return EXIT.usage;
  }
  const exporting = path === 'audit export' ? fileOption(line, 'fhir') : undefined;
  if (exporting !== undefined && 'usage' in exporting) {
    io.stderr(`error: ${exporting.usage}\nsee \`clinic audit export --help\`\n`);
    return EXIT.usage;
  }
  const copying = path === 'patient export' ? fileOption(line, 'out') : undefined;
  if (copying !== undefined && 'usage' in copying) {
    io.stderr(`error: ${copying.usage}\nsee \`clinic patient export --help\`\n`);
    return EXIT.usage;
  }
  const sending = filesToSend(saving?.line ?? exporting?.line ?? copying?.line ?? line);
  if ('usage' in sending) {
    io.stderr(`error: ${sending.usage}\nsee \`clinic ${path} --help\`\n`);
    return EXIT.usage;
  }
  const changes = !READS.has(path) && !PRINTS_A_SECRET.has(path) && !line.includes('--help') && !line.includes('-h');
  const connection = new DeskConnection();
  const idempotencyKey = changes ? (key ?? newDeskKey()) : undefined;
  const sent = sending.line;
  const answer = await connection.sendAsPerson({
    method: 'POST',
    path: '/desk/commands',
    body: { argv: KEYED.has(path) && idempotencyKey !== undefined ? withOption(sent, '--idempotency-key', idempotencyKey) : sent },
    files: sending.files,
    ...(idempotencyKey === undefined ? { repeatable: READS.has(path) } : { idempotencyKey }),
  });
  const printed = answer.body as DeskCommandAnswer;
  if (printed.download !== null && saving !== undefined) {
    // The file first, then what the server printed about it (which says it was saved).
    await downloadTo(
      { url: connection.desk.server_url, caPem: connection.desk.ca_pem },
      printed.download,
      { 'clinic-device': connection.desk.device_token, authorization: `Bearer ${connection.sessionToken() ?? ''}` },
      saving.target,
      saving.replace,
    );
  }
  if (printed.download !== null && exporting !== undefined) {
    // The server checked the command and named the window; the file is written here from its pages.
    const exported = await exportAuditPages(connection, printed.download, exporting.target, exporting.replace);
    emit(io, { json: line.includes('--json') }, exported, () => auditExportPrintout(exported));
    return 0;
  }
  if (printed.download !== null && copying !== undefined) {
    // The server checked the command; the copy is fetched from the export operation, which records it.
    const fetched = await downloadTo(
      { url: connection.desk.server_url, caPem: connection.desk.ca_pem },
      printed.download,
      { 'clinic-device': connection.desk.device_token, authorization: `Bearer ${connection.sessionToken() ?? ''}` },
      copying.target,
      false,
    );
    const written = {
      file: copying.target,
      size: fetched.size,
      sha256: fetched.sha256,
      patient_id: /\/patients\/([^/]+)\/export$/.exec(printed.download)?.[1] ?? '',
      patient_number: /^(.*)-\d{4}-\d{2}-\d{2}\.zip$/.exec(fetched.filename ?? '')?.[1] ?? '',
    };
    emit(io, { json: line.includes('--json') }, written, () => writtenExportPrintout(written, null));
    return 0;
  }
  io.stdout(printed.stdout);
  io.stderr(printed.stderr);
  return printed.exit_code;
}

/**
 * The file an option names at a desk PC (`audit export --fhir FILE`, `patient export --out FILE`):
 * FILE is this PC's, checked here as `document save`'s FILE is, and sent absolute.
 */
function fileOption(
  line: readonly string[],
  name: string,
): { line: string[]; target: string; replace: boolean } | { usage: string } | undefined {
  let target: string | undefined;
  try {
    const sent = rewriteOptions(line, [name], (option) => {
      if (option.value === undefined) return option.words;
      target = checkedOptionValue(option, '<file>', parseTargetPath);
      return option.withValue(target);
    });
    if (target === undefined) return undefined;
    const replace = line.includes('--force');
    if (!replace && existsSync(target)) throw errors.fileExists(target);
    return { line: sent, target, replace };
  } catch (error) {
    if (error instanceof OptionUsage) return { usage: error.message };
    throw error;
  }
}

/** A value of an option this PC checks that commander on the server would refuse: a usage error (exit 2), said as commander says it. */
class OptionUsage extends Error {}

/** `option`'s value as `parse` makes it, or OptionUsage naming the option and why. */
function checkedOptionValue(option: TypedOption, placeholder: string, parse: (text: string) => string): string {
  try {
    return parse(option.value!);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new OptionUsage(`option '--${option.name} ${placeholder}' argument '${option.value}' is invalid. ${why}`);
  }
}

/**
 * `document save REF FILE` at a desk PC: FILE is this PC's, checked here before anything is sent
 * (its folder must exist: a usage error; there already without --force: FILE_EXISTS) and sent
 * absolute. Undefined when the command line names no FILE (the server says what is missing).
 */
function savedFile(line: readonly string[]): { line: string[]; target: string; replace: boolean } | { usage: string } | undefined {
  const words = line.slice(2);
  const positions = words.flatMap((word, index) => (word.startsWith('-') ? [] : [index + 2]));
  const at = positions[1];
  if (at === undefined) return undefined;
  let target: string;
  try {
    target = parseTargetPath(line[at]!);
  } catch (error) {
    return { usage: error instanceof Error ? error.message : String(error) };
  }
  const replace = line.includes('--force');
  if (!replace && existsSync(target)) throw errors.fileExists(target);
  return { line: line.map((word, index) => (index === at ? target : word)), target, replace };
}

/**
 * The files of this PC a command reads (`--file PATH`, `--token-file PATH`): each checked here as
 * the server PC's desk checks it (a regular file: else a usage error; readable: else
 * FILE_UNREADABLE), named absolute in the command line, and sent with it as a form part of the
 * option's name. The line as sent, and the files; or the usage error.
 */
function filesToSend(line: readonly string[]): { line: string[]; files: { part: string; path: string }[] } | { usage: string } {
  const files: { part: string; path: string }[] = [];
  try {
    const sent = rewriteOptions(line, DESK_COMMAND_FILE_OPTIONS, (option) => {
      // Without a value, commander on the server says it is missing.
      if (option.value === undefined) return option.words;
      const path = checkedOptionValue(option, '<path>', (text) => resolve(parseFilePath(text)));
      // Opened here as the command would open it: a file this user may not read is refused by name.
      try {
        accessSync(path, constants.R_OK);
      } catch (error) {
        throw errors.fileUnreadable(path, readFailure(error));
      }
      files.push({ part: option.name, path });
      return option.withValue(path);
    });
    return { line: sent, files };
  } catch (error) {
    if (error instanceof OptionUsage) return { usage: error.message };
    throw error;
  }
}

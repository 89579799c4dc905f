import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ShownSmsGateway } from '../../domain/reminders/sms-gateway.js';
import { REMOVE_SMS_GATEWAY, SET_SMS_GATEWAY, SHOW_SMS_GATEWAY } from '../../domain/reminders/set-sms-gateway.js';
import { errors } from '../../errors.js';
import { readFailure } from '../../domain/named-files.js';
import { deskRecord } from '../desk-format.js';
import { collect } from '../desk-input.js';
import { labelField } from '../field-options.js';
import { parseFilePath } from '../input-file.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

type SetOptions = CommonOptions & {
  preset: string;
  account?: string;
  tokenFile?: string;
  from?: string;
  baseUrl?: string;
  url?: string;
  header?: string[];
  bodyTemplate?: string;
  idPointer?: string;
  errorPointer?: string;
  inboundUrl?: string;
};

/** The token in `path`: its first line, so it never stands in the shell's history or the process list. */
function tokenIn(path: string): string {
  try {
    return readFileSync(path, 'utf8').split(/\r?\n/)[0] ?? '';
  } catch (error) {
    throw errors.fileUnreadable(path, readFailure(error));
  }
}

/** The gateway for people: where it sends, from which number, which headers, where replies are read. */
const gatewayText = (gateway: ShownSmsGateway) =>
  deskRecord([
    ['Preset', gateway.preset],
    ['Sends to', gateway.url],
    ['From', gateway.from ?? '(the gateway decides)'],
    ['Headers', gateway.headers.length === 0 ? '(none)' : `${gateway.headers.join(', ')} (values kept, never shown)`],
    ['Replies', gateway.inbound ?? 'not read (no --inbound-url)'],
  ]);

/** `clinic sms-gateway set|show|remove`. */
export function registerSmsGatewayCommands(program: Command, io: CliIo): void {
  const group = program.command('sms-gateway').description("the clinic's SMS gateway, through which clinic serve sends reminders");
  const set = subcommand(group, 'set', "set the clinic's SMS gateway (replaces the one before)")
    .requiredOption('--preset <twilio|generic>', "twilio (Twilio's Messages API) or generic (any gateway that takes a JSON POST)")
    .option('--account <sid>', "twilio: the account's SID (AC…)")
    .option('--token-file <file>', "twilio: a file whose first line is the account's auth token", parseFilePath)
    .option('--from <number>', 'the number the messages come from (twilio: required)')
    .option('--base-url <url>', "twilio: the API's address (default https://api.twilio.com)")
    .option('--url <url>', 'generic: where each message is POSTed')
    .option('--header <header>', "generic: 'Name: value', repeatable; a value may hold {reference}", collect)
    .option('--body-template <json>', 'generic: the JSON body with {to}, {from}, {text}, {reference} inside its strings')
    .option('--id-pointer <pointer>', "generic: where the message's id is in the answer (default /id)")
    .option('--error-pointer <pointer>', 'generic: where the reason is in a refusal (default /error)')
    .option('--inbound-url <url>', 'generic: where replies are read ({since} in it is filled)');
  labelField(set, 'token', '--token-file');
  set.action(async (options: SetOptions) => {
    await runUseCaseCommand(io, options, SET_SMS_GATEWAY, {
      request: () => ({
        body: {
          preset: options.preset,
          account: options.account,
          token: options.tokenFile === undefined ? undefined : tokenIn(options.tokenFile),
          from: options.from,
          base_url: options.baseUrl,
          url: options.url,
          header: options.header,
          body_template: options.bodyTemplate,
          id_pointer: options.idPointer,
          error_pointer: options.errorPointer,
          inbound_url: options.inboundUrl,
        },
      }),
      print: (gateway) => `SMS gateway set; clinic serve sends by it within a minute.\n${gatewayText(gateway)}`,
    });
  });
  subcommand(group, 'show', "show the clinic's SMS gateway (never its token or header values)").action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, SHOW_SMS_GATEWAY, {
      request: () => ({}),
      print: (gateway) =>
        gateway === null ? 'No SMS gateway: reminders go by e-mail (clinic sms-gateway set adds one).\n' : gatewayText(gateway),
    });
  });
  subcommand(group, 'remove', "remove the clinic's SMS gateway").action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, REMOVE_SMS_GATEWAY, {
      request: () => ({}),
      print: ({ removed }) => (removed ? 'SMS gateway removed: reminders go by e-mail, or are skipped.\n' : 'There was no SMS gateway.\n'),
    });
  });
}

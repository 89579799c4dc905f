import type { Command } from 'commander';
import type { Db } from '../../db/open-database.js';
import { CHANGE_TYPES } from '../../change-types.js';
import { clinicTimeZone } from '../../domain/settings.js';
import {
  ADD_WEBHOOK_ENDPOINT,
  ENABLE_WEBHOOK_ENDPOINT,
  insecureWebhookHost,
  LIST_WEBHOOK_ENDPOINTS,
  listedWebhookEndpoint,
  REMOVE_WEBHOOK_ENDPOINT,
  REPLAY_WEBHOOK_ENDPOINT,
  WEBHOOK_ADD_FIELDS,
  type WebhookEndpointStatus,
} from '../../domain/webhooks/webhook-endpoints.js';
import { deskRecord, heading, localDateTime } from '../desk-format.js';
import { addFieldOptions, fieldArgument } from '../field-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** An endpoint for people: where it stands in the feed, what went wrong last and when it is tried again. */
function describeEndpoint(endpoint: WebhookEndpointStatus, db: Db): string {
  const timeZone = clinicTimeZone(db);
  const at = (iso: string | null) => (iso === null ? null : localDateTime(iso, timeZone));
  const allTypes = endpoint.types.length === CHANGE_TYPES.length;
  const delivered =
    endpoint.last_delivered_seq === null ? 'nothing yet' : `event ${endpoint.last_delivered_seq} at ${at(endpoint.last_delivered_at)}`;
  return (
    heading(endpoint.state === 'enabled' ? endpoint.name : `${endpoint.name} (disabled)`) +
    deskRecord([
      ['URL', endpoint.url],
      ['Events', allTypes ? 'all types' : endpoint.types.join(', ')],
      ['State', endpoint.state],
      ['Delivered', delivered],
      ['Waiting', endpoint.lag === 1 ? '1 event' : `${endpoint.lag} events`],
      ['Last error', endpoint.last_error],
      // Endpoints added before --allow-insecure-url existed keep working; IT should see what they send.
      [
        'Security',
        insecureWebhookHost(endpoint.url) === undefined ? null : 'plain http:// to another host: events cross the network unencrypted',
      ],
      ['Next try', endpoint.state === 'enabled' ? at(endpoint.next_attempt_at) : null],
      ['Disabled', at(endpoint.disabled_at)],
      ['Id', endpoint.id],
    ])
  );
}

/** `clinic webhook add|list|enable|replay|remove`: the endpoints the change feed is pushed to while `clinic serve` runs. */
export function registerWebhookCommands(program: Command, io: CliIo): void {
  const group = program
    .command('webhook')
    .description('push the change feed, signed (Standard Webhooks), to the URLs of integrations while clinic serve runs');

  addFieldOptions(subcommand(group, 'add', 'add an endpoint; its signing secret is printed once'), WEBHOOK_ADD_FIELDS)
    .option('--allow-insecure-url', 'accept an http:// URL of another host: events then cross the network unencrypted')
    .action(async (options: CommonOptions & { url: string; types?: string; name?: string; allowInsecureUrl?: boolean }) => {
      await runUseCaseCommand(io, options, ADD_WEBHOOK_ENDPOINT, {
        request: () => ({
          body: { url: options.url, types: options.types, name: options.name, allow_insecure_url: options.allowInsecureUrl === true },
        }),
        print: (added) =>
          heading(`Webhook endpoint ${added.name}`) +
          deskRecord([
            ['URL', added.url],
            ['Events', added.types.length === CHANGE_TYPES.length ? 'all types' : added.types.join(', ')],
            ['Secret', added.secret],
            ['Id', added.id],
          ]) +
          '\nGive the secret to the receiving program now: it is not shown again. It gets every change committed from now on,\n' +
          'while clinic serve runs.\n',
      });
      // Said on stderr, so that --json prints exactly the endpoint's shape: the person who typed
      // --allow-insecure-url sees what they accepted, and so does a script's log.
      const insecureHost = insecureWebhookHost(options.url);
      if (insecureHost !== undefined)
        io.stderr(`warning: events go to ${insecureHost} over plain http://, unencrypted; use an https:// URL when the receiver has one\n`);
    });

  subcommand(group, 'list', 'list the endpoints: state, last delivered event, events waiting, last error').action(
    async (options: CommonOptions) => {
      await runUseCaseCommand(io, options, LIST_WEBHOOK_ENDPOINTS, {
        request: () => ({}),
        json: (endpoints) => endpoints.map(listedWebhookEndpoint),
        print: (endpoints, db) =>
          endpoints.length === 0
            ? 'No webhook endpoints. `clinic webhook add --url URL` adds one.\n'
            : endpoints.map((endpoint) => describeEndpoint(endpoint, db)).join('\n'),
      });
    },
  );

  const reference = (command: Command) => fieldArgument(command, '<id>', "the endpoint's id or name (clinic webhook list)", 'webhook');

  reference(subcommand(group, 'enable', 'enable an endpoint: it resumes at the first event it has not had')).action(
    async (id: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, ENABLE_WEBHOOK_ENDPOINT, {
        request: () => ({ path: { webhook: id } }),
        json: listedWebhookEndpoint,
        print: (endpoint, db) => `Enabled; the running server resumes within a second.\n\n${describeEndpoint(endpoint, db)}`,
      });
    },
  );

  reference(subcommand(group, 'replay', 'send every event after a seq again, in order, then go on'))
    .requiredOption('--after <seq>', 'the seq after which events are sent again (0: from the first)')
    .action(async (id: string, options: CommonOptions & { after: string }) => {
      await runUseCaseCommand(io, options, REPLAY_WEBHOOK_ENDPOINT, {
        request: () => ({ path: { webhook: id }, body: { after: options.after } }),
        json: listedWebhookEndpoint,
        print: (endpoint, db) =>
          `Events after ${options.after} are sent again, in order, from within a second.\n\n${describeEndpoint(endpoint, db)}`,
      });
    });

  reference(subcommand(group, 'remove', 'remove an endpoint: it gets no more events')).action(
    async (id: string, options: CommonOptions) => {
      await runUseCaseCommand(io, options, REMOVE_WEBHOOK_ENDPOINT, {
        request: () => ({ path: { webhook: id } }),
        json: listedWebhookEndpoint,
        print: (endpoint) => `Removed the webhook endpoint ${endpoint.name} (${endpoint.url}); it gets no more events.\n`,
      });
    },
  );
}

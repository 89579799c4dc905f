import type { Command } from 'commander';
import { API_KEY_INPUT_FIELDS, CREATE_API_KEY, LIST_API_KEYS, resolveApiKeyReference, REVOKE_API_KEY } from '../../domain/api-keys.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { deskRecord, heading, localDateTime } from '../desk-format.js';
import { addFieldOptions, fieldArgument, readFieldOptions } from '../field-options.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { wrapLines } from '../report-error.js';
import { runUseCaseCommand } from '../use-case-command.js';

/** A key's own limit as people read it. */
const limitText = (limit: number | null | undefined) => (limit === null || limit === undefined ? 'none' : `${limit} requests per minute`);

/** `--rate-limit`: the key's own limit, named shorter at the desk than its field. */
const OPTION_NAMES = { rate_limit_per_minute: 'rate-limit' } as const;

/** `clinic api-key create|list|revoke`. */
export function registerApiKeyCommands(program: Command, io: CliIo): void {
  const group = program.command('api-key').description('issue, list and revoke API keys');

  addFieldOptions(subcommand(group, 'create', 'issue a key; it is printed once and only its hash is kept'), API_KEY_INPUT_FIELDS, {
    names: OPTION_NAMES,
  }).action(async (options: CommonOptions & Record<string, unknown>) => {
    await runUseCaseCommand(io, options, CREATE_API_KEY, {
      request: (db) => ({ body: readFieldOptions(options, API_KEY_INPUT_FIELDS, db, { names: OPTION_NAMES }) }),
      print: (created, db) =>
        heading(`API key ${created.name}`) +
        deskRecord([
          ['Key', created.key],
          ['Id', created.id],
          ['Scopes', created.scopes.join(', ')],
          ['Rate limit', limitText(created.rate_limit_per_minute)],
          ['Created', localDateTime(created.created_at, clinicTimeZone(db))],
        ]) +
        '\nStore the key now: it is not shown again.\n',
    });
  });

  subcommand(group, 'list', 'list keys (never their secrets)').action(async (options: CommonOptions) => {
    await runUseCaseCommand(io, options, LIST_API_KEYS, {
      request: () => ({}),
      // A block per key rather than a table: the id (which revoke takes) and the scopes are long,
      // and the scopes wrap within 100 columns.
      print(keys, db) {
        const timeZone = clinicTimeZone(db);
        return keys.length === 0
          ? 'No API keys. `clinic api-key create --name NAME` issues one.\n'
          : keys
              .map(
                (key) =>
                  heading(key.revoked_at === null ? key.name : `${key.name} (revoked)`) +
                  deskRecord([
                    ['Id', key.id],
                    ['Scopes', key.scopes.join(', ')],
                    ['Rate limit', limitText(key.rate_limit_per_minute)],
                    ['Created', localDateTime(key.created_at, timeZone)],
                    ['Revoked', key.revoked_at === null ? null : localDateTime(key.revoked_at, timeZone)],
                  ]),
              )
              .join('\n');
      },
    });
  });

  fieldArgument(
    subcommand(group, 'revoke', 'revoke a key at once, also on a running server'),
    '<key>',
    'the key: its name or its id, as `api-key list` prints them',
    'id',
  ).action(async (key: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, REVOKE_API_KEY, {
      request: (db) => ({ path: { id: resolveApiKeyReference(db, key) } }),
      print(revoked, db) {
        const at = revoked.revoked_at === null ? '' : ` at ${localDateTime(revoked.revoked_at, clinicTimeZone(db))}`;
        return wrapLines(`Revoked the key ${revoked.name} (${revoked.id})${at}; it is refused from now on, also by a running server.\n`);
      },
    });
  });
}

import type { Command } from 'commander';
import { createApiKey, listApiKeys, MOST_REQUESTS_PER_MINUTE, revokeApiKey, SCOPES } from '../../domain/api-keys.js';
import { clinicTimeZone } from '../../domain/settings.js';
import { withDatabase } from '../database.js';
import { deskRecord, heading, localDateTime } from '../desk-format.js';
import { fieldArgument, labelField } from '../field-options.js';
import type { CliIo } from '../io.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** A key's own limit as people read it. */
const limitText = (limit: number | null | undefined) => (limit === null || limit === undefined ? 'none' : `${limit} requests per minute`);

/** `--rate-limit 100` as the number the domain validates; any other text is passed on for it to refuse, naming the option. */
const limitValue = (text: string): unknown => (/^[+-]?\d+$/.test(text) ? Number(text) : text);

/** `clinic api-key create|list|revoke`. */
export function registerApiKeyCommands(program: Command, io: CliIo): void {
  const group = program.command('api-key').description('issue, list and revoke API keys');

  const create = subcommand(group, 'create', 'issue a key; it is printed once and only its hash is kept')
    .requiredOption('--name <name>', 'who or what the key is for')
    .option('--scopes <list>', `comma-separated subset of: ${SCOPES.join(', ')} (default: every scope, also those later versions add)`)
    .option(
      '--rate-limit <n>',
      `requests the key may make per clock minute, 1 to ${MOST_REQUESTS_PER_MINUTE}; past them the API answers 429 until the minute ends (default: no limit)`,
    );
  // A refused --rate-limit names the option typed, not the field it fills.
  labelField(create, 'rate_limit_per_minute', '--rate-limit');
  create.action(async (options: CommonOptions & { name: string; scopes?: string; rateLimit?: string }) => {
    await withDatabase(options, (db) => {
      const scopes = options.scopes
        ?.split(',')
        .map((scope) => scope.trim())
        .filter(Boolean);
      const created = createApiKey(db, {
        name: options.name,
        ...(scopes === undefined ? {} : { scopes }),
        ...(options.rateLimit === undefined ? {} : { rate_limit_per_minute: limitValue(options.rateLimit) }),
      });
      emit(
        io,
        options,
        created,
        () =>
          heading(`API key ${created.name}`) +
          deskRecord([
            ['Key', created.key],
            ['Id', created.id],
            ['Scopes', created.scopes.join(', ')],
            ['Rate limit', limitText(created.rate_limit_per_minute)],
            ['Created', localDateTime(created.created_at, clinicTimeZone(db))],
          ]) +
          '\nStore the key now: it is not shown again.\n',
      );
    });
  });

  subcommand(group, 'list', 'list keys (never their secrets)').action(async (options: CommonOptions) => {
    await withDatabase(options, (db) => {
      const keys = listApiKeys(db);
      const timeZone = clinicTimeZone(db);
      // A block per key rather than a table: the id (which revoke takes) and the scopes are long,
      // and the scopes wrap within 100 columns.
      emit(io, options, keys, () =>
        keys.length === 0
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
              .join('\n'),
      );
    });
  });

  fieldArgument(
    subcommand(group, 'revoke', 'revoke a key at once, also on a running server'),
    '<id>',
    'the key id from api-key list',
    'id',
  ).action(async (id: string, options: CommonOptions) => {
    await withDatabase(options, (db) => {
      const revoked = revokeApiKey(db, id);
      emit(io, options, revoked, () => {
        const at = revoked.revoked_at === null ? '' : ` at ${localDateTime(revoked.revoked_at, clinicTimeZone(db))}`;
        return `Revoked the key ${revoked.name} (${revoked.id})${at}; it is refused from now on, also by a running server.\n`;
      });
    });
  });
}

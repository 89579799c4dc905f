import type { Command } from 'commander';
import { createApiKey, listApiKeys, revokeApiKey, SCOPES } from '../../domain/api-keys.js';
import { withDatabase } from '../database.js';
import type { CliIo } from '../io.js';
import { emit, formatRecord, formatTable, type CommonOptions } from '../output.js';
import { subcommand } from '../program.js';

/** `clinic api-key create|list|revoke`. */
export function registerApiKeyCommands(program: Command, io: CliIo): void {
  const group = program.command('api-key').description('issue, list and revoke API keys');

  subcommand(group, 'create', 'issue a key; it is printed once and only its hash is kept')
    .requiredOption('--name <name>', 'who or what the key is for')
    .option('--scopes <list>', `comma-separated subset of: ${SCOPES.join(', ')} (default: every scope, also those later versions add)`)
    .action(async (options: CommonOptions & { name: string; scopes?: string }) => {
      await withDatabase(options, (db) => {
        const scopes = options.scopes
          ?.split(',')
          .map((scope) => scope.trim())
          .filter(Boolean);
        const created = createApiKey(db, { name: options.name, ...(scopes === undefined ? {} : { scopes }) });
        emit(
          io,
          options,
          created,
          () => `${formatRecord({ ...created, scopes: created.scopes.join(' ') })}\nStore the key now: it is not shown again.\n`,
        );
      });
    });

  subcommand(group, 'list', 'list keys (never their secrets)').action(async (options: CommonOptions) => {
    await withDatabase(options, (db) => {
      const keys = listApiKeys(db);
      emit(io, options, keys, () =>
        formatTable(
          keys.map((k) => ({ ...k, scopes: k.scopes.join(' ') })),
          ['id', 'name', 'scopes', 'created_at', 'revoked_at'],
        ),
      );
    });
  });

  subcommand(group, 'revoke', 'revoke a key at once, also on a running server')
    .argument('<id>', 'the key id from api-key list')
    .action(async (id: string, options: CommonOptions) => {
      await withDatabase(options, (db) => {
        const revoked = revokeApiKey(db, id);
        emit(io, options, revoked, () => `revoked ${revoked.id} (${revoked.name}) at ${revoked.revoked_at}\n`);
      });
    });
}

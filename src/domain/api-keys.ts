import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/open-database.js';
import { countApiKeys, findApiKeyByHash, insertApiKey, listApiKeyRows, revokeApiKeyRow, type ApiKeyRow } from '../db/api-keys.js';
import { field } from '../fields/field-spec.js';
import { idOf } from '../fields/human-numbers.js';
import { newId, nowIso } from './clock.js';
import { errors } from '../errors.js';
import { defineUseCase, performUseCase } from './use-case.js';
import { commaListIssues, commaListOf } from './validation/comma-list.js';
import { ROLE_ROWS } from './people/roles.js';

/** Every scope: decisions.md §2 and the read scopes of interface 1.1.0. */
export const SCOPES = [
  'patients:read',
  'patients:write',
  'appointments:read',
  'appointments:write',
  'documents:read',
  'documents:write',
  'lookups:read',
  'invoices:read',
  'invoices:write',
  'payments:write',
  'audit:read',
  'events:read',
  // 1.3.0
  'reminders:read',
  'patients:export',
] as const;
export type Scope = (typeof SCOPES)[number];

/** A key as listed: never its secret. */
export interface ApiKeySummary {
  id: string;
  name: string;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
  /** Requests the key may make per clock minute; null: no limit. */
  rate_limit_per_minute: number | null;
}

/** A key just created: the only time its secret is shown. */
export interface CreatedApiKey {
  id: string;
  name: string;
  key: string;
  scopes: Scope[];
  created_at: string;
  /**
   * Only for a key made with a limit: a key made without one is printed in exactly the shape of
   * decisions.md §8, as before the limits existed.
   */
  rate_limit_per_minute?: number;
}

/** Who is calling: the key that authenticated a request. */
export interface ApiPrincipal {
  keyId: string;
  /** The key's name, as the audit trail names who asked. */
  keyName: string;
  scopes: ReadonlySet<string>;
  /** The key's own limit of requests per clock minute (the server counts them); null: none. */
  rateLimitPerMinute: number | null;
}

const KEY_PREFIX = 'clinic_';
/** The largest `--rate-limit`: far above what one client of a clinic sends, still a bound a person can read. */
export const MOST_REQUESTS_PER_MINUTE = 1_000_000;

/** What `clinic api-key create` takes. */
export const API_KEY_INPUT_FIELDS = [
  field.string('name', { required: true, minLength: 1, maxLength: 128, description: 'who or what the key is for' }),
  field.string('scopes', {
    description: `comma-separated subset of: ${SCOPES.join(', ')} (default: every scope, also those later versions add)`,
  }),
  field.integer('rate_limit_per_minute', {
    nullable: true,
    minimum: 1,
    maximum: MOST_REQUESTS_PER_MINUTE,
    description: `requests the key may make per clock minute, 1 to ${MOST_REQUESTS_PER_MINUTE}; past them the API answers 429 until the minute ends (default: no limit)`,
  }),
] as const;

/** The path of `clinic api-key revoke ID`. */
const API_KEY_PATH_FIELDS = [field.uuid('id', { required: true, description: 'the key id from api-key list' })] as const;

function hashKey(key: string): Buffer {
  // node:crypto's one-shot hash: half the time of a Hash object, on every request.
  return hash('sha256', key, 'buffer');
}

/**
 * How the scopes column records a key issued without --scopes: every scope, including those a
 * later version adds (clinic-api-1.1.md, "Scopes"). A key issued with --scopes lists its own.
 */
const EVERY_SCOPE = '*';

/** The scopes a stored key holds now. */
function scopesOf(row: ApiKeyRow): Scope[] {
  if (row.scopes === EVERY_SCOPE) return [...SCOPES];
  return row.scopes.split(' ').filter((scope): scope is Scope => (SCOPES as readonly string[]).includes(scope));
}

function summarize(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    scopes: scopesOf(row),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    rate_limit_per_minute: row.rate_limit_per_minute,
  };
}

/**
 * `clinic api-key create`: a key of 256 random bits, of which only the SHA-256 is stored; the key
 * is returned once. Without `scopes`, every scope, now and of later versions; without
 * `rate_limit_per_minute`, no limit of its own.
 */
export const CREATE_API_KEY = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Issue an API key; it is shown once and only its hash is kept',
  input: { body: API_KEY_INPUT_FIELDS },
  refusals: [],
  access: 'write',
  moreIssues: ({ body }, fieldIssues) =>
    commaListIssues(body, fieldIssues, { field: 'scopes', allowed: SCOPES, none: 'a key needs at least one scope' }),
  run(db, { body }): CreatedApiKey {
    const named = commaListOf(body.scopes);
    const scopes = SCOPES.filter((scope) => named === null || named.includes(scope));
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const row: ApiKeyRow = {
      id: newId(),
      name: body.name,
      key_hash: hashKey(key).toString('hex'),
      scopes: named === null ? EVERY_SCOPE : scopes.join(' '),
      created_at: nowIso(),
      revoked_at: null,
      rate_limit_per_minute: body.rate_limit_per_minute,
    };
    insertApiKey(db, row);
    const created: CreatedApiKey = { id: row.id, name: row.name, key, scopes, created_at: row.created_at };
    return row.rate_limit_per_minute === null ? created : { ...created, rate_limit_per_minute: row.rate_limit_per_minute };
  },
  audit: ({ id }) => [{ action: 'key.create', patientId: null, subjectId: id }],
});

/** CREATE_API_KEY on a connection of its own (the first key of `serve`, a test's): `scopes` a list, undefined for every scope. */
export function createApiKey(db: Db, input: { name: unknown; scopes?: readonly string[]; rate_limit_per_minute?: unknown }): CreatedApiKey {
  const body = { name: input.name, scopes: input.scopes?.join(','), rate_limit_per_minute: input.rate_limit_per_minute };
  return performUseCase(CREATE_API_KEY, db, { body }, { source: 'cli', actor: null });
}

/** `clinic api-key list`: every key, oldest first, without secrets. */
export const LIST_API_KEYS = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'List the API keys, never their secrets',
  input: {},
  refusals: [],
  access: 'read',
  run: (db): ApiKeySummary[] => listApiKeyRows(db).map(summarize),
});

/** LIST_API_KEYS on a connection of its own. */
export function listApiKeys(db: Db): ApiKeySummary[] {
  return performUseCase(LIST_API_KEYS, db, {}, { source: 'cli', actor: null });
}

/** Whether any key was ever issued (the first `serve` issues one when none was). */
export function hasApiKeys(db: Db): boolean {
  return countApiKeys(db) > 0;
}

/** `clinic api-key revoke`: a key revoked at once, also on a running server; revoking twice keeps the first time. */
export const REVOKE_API_KEY = defineUseCase({
  roles: ROLE_ROWS.administer,
  summary: 'Revoke an API key at once, also on a running server',
  input: { path: API_KEY_PATH_FIELDS },
  refusals: [errors.apiKeyNotFound()],
  access: 'write',
  run(db, { path }): ApiKeySummary {
    const row = revokeApiKeyRow(db, path.id, nowIso());
    if (!row) throw errors.apiKeyNotFound();
    return summarize(row);
  },
  audit: ({ id }) => [{ action: 'key.revoke', patientId: null, subjectId: id }],
});

/**
 * The key the desk names (`clinic api-key revoke NAME|ID`): an id as given; else the one key not
 * yet revoked of that name, in any case (API_KEY_NOT_FOUND when none is, API_KEY_NAME_AMBIGUOUS
 * listing their ids when several are). Names are not unique, as the API lets them be; a clinic
 * has a handful of keys, so they are read whole.
 */
export function resolveApiKeyReference(db: Db, reference: string): string {
  if (idOf(reference.trim()) !== undefined) return reference;
  const name = reference.trim().toLowerCase();
  const named = listApiKeyRows(db).filter((row) => row.revoked_at === null && row.name.toLowerCase() === name);
  if (named.length > 1)
    throw errors.apiKeyNameAmbiguous(
      reference.trim(),
      named.map((row) => row.id),
    );
  if (named[0] === undefined) throw errors.apiKeyNotFound(`No API key in use is named "${reference.trim()}", and it is no id.`);
  return named[0].id;
}

/** REVOKE_API_KEY on a connection of its own. */
export function revokeApiKey(db: Db, id: string): ApiKeySummary {
  return performUseCase(REVOKE_API_KEY, db, { path: { id } }, { source: 'cli', actor: null });
}

/**
 * The principal of an `Authorization` header value, or UNAUTHENTICATED. The key is looked up by
 * its hash and the hashes compared in constant time, so timing reveals nothing about the key.
 * Revocation is read from the database on every request and so applies at once.
 */
export function authenticate(db: Db, authorization: string | undefined): ApiPrincipal {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  if (!match?.[1]) throw errors.unauthenticated();
  const presented = hashKey(match[1]);
  const row = findApiKeyByHash(db, presented.toString('hex'));
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), presented) || row.revoked_at !== null) {
    throw errors.unauthenticated();
  }
  return { keyId: row.id, keyName: row.name, scopes: new Set(scopesOf(row)), rateLimitPerMinute: row.rate_limit_per_minute };
}

/** FORBIDDEN unless the principal holds `scope`. */
export function requireScope(principal: ApiPrincipal, scope: Scope): void {
  if (!principal.scopes.has(scope)) throw errors.forbidden(scope);
}

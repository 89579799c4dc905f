import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/open-database.js';
import { countApiKeys, findApiKeyByHash, insertApiKey, listApiKeyRows, revokeApiKeyRow, type ApiKeyRow } from '../db/api-keys.js';
import { field } from '../fields/field-spec.js';
import { newId, nowIso } from './clock.js';
import { errors, ValidationError } from './errors.js';
import { problems } from './validation/problems.js';
import { fieldsValidator, issue, throwIfIssues } from './validation/validate.js';
import { uuidError } from './validation/structs.js';

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

const createKeyInput = fieldsValidator(
  [
    field.string('name', { required: true, minLength: 1, maxLength: 128 }),
    field.integer('rate_limit_per_minute', { nullable: true, minimum: 1, maximum: MOST_REQUESTS_PER_MINUTE }),
  ],
  'body',
);

function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
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
 * Issues a key of 256 random bits. Only its SHA-256 is stored; the key is returned once.
 * `scopes` undefined means every scope, now and of later versions; `rate_limit_per_minute`
 * undefined or null, no limit of its own.
 */
export function createApiKey(db: Db, input: { name: unknown; scopes?: readonly string[]; rate_limit_per_minute?: unknown }): CreatedApiKey {
  const scopeIssues = (input.scopes ?? []).flatMap((scope, index) =>
    (SCOPES as readonly string[]).includes(scope) ? [] : [issue(['body', 'scopes', index], problems.literalError(SCOPES), scope)],
  );
  if (input.scopes !== undefined && input.scopes.length === 0) {
    scopeIssues.push(issue(['body', 'scopes'], problems.valueError('a key needs at least one scope'), []));
  }
  const { name, rate_limit_per_minute: limit = null } = input;
  throwIfIssues(createKeyInput.issues({ name, rate_limit_per_minute: limit }), scopeIssues);
  const scopes = SCOPES.filter((scope) => input.scopes === undefined || input.scopes.includes(scope));
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row: ApiKeyRow = {
    id: newId(),
    name: name as string,
    key_hash: hashKey(key).toString('hex'),
    scopes: input.scopes === undefined ? EVERY_SCOPE : scopes.join(' '),
    created_at: nowIso(),
    revoked_at: null,
    rate_limit_per_minute: limit as number | null,
  };
  insertApiKey(db, row);
  const created: CreatedApiKey = { id: row.id, name: row.name, key, scopes, created_at: row.created_at };
  return row.rate_limit_per_minute === null ? created : { ...created, rate_limit_per_minute: row.rate_limit_per_minute };
}

/** Every key, oldest first, without secrets. */
export function listApiKeys(db: Db): ApiKeySummary[] {
  return listApiKeyRows(db).map(summarize);
}

/** Whether any key was ever issued (the first `serve` issues one when none was). */
export function hasApiKeys(db: Db): boolean {
  return countApiKeys(db) > 0;
}

/** Revokes a key at once; revoking twice keeps the first time. */
export function revokeApiKey(db: Db, id: string): ApiKeySummary {
  const error = uuidError(id);
  if (error !== undefined) throw new ValidationError([issue(['path', 'id'], problems.uuidParsing(error), id)]);
  const row = revokeApiKeyRow(db, id.toLowerCase(), nowIso());
  if (!row) throw errors.apiKeyNotFound();
  return summarize(row);
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

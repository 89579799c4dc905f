import { preparedFor, type Db } from './open-database.js';

export interface ApiKeyRow {
  id: string;
  name: string;
  key_hash: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
  /** Requests the key may make per clock minute; null: no limit. */
  rate_limit_per_minute: number | null;
}

const statements = preparedFor((db) => ({
  insert: db.prepare<ApiKeyRow>(
    `INSERT INTO api_keys (id, name, key_hash, scopes, created_at, revoked_at, rate_limit_per_minute)
     VALUES (@id, @name, @key_hash, @scopes, @created_at, @revoked_at, @rate_limit_per_minute)`,
  ),
  byHash: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = ?'),
  all: db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id'),
  count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM api_keys'),
  revoke: db.prepare<{ id: string; revoked_at: string }>(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, @revoked_at) WHERE id = @id',
  ),
  byId: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?'),
}));

/** Stores a new key's row (its hash, never the key). */
export function insertApiKey(db: Db, row: ApiKeyRow): void {
  statements(db).insert.run(row);
}

/** The key whose SHA-256 is `keyHash`, revoked or not. */
export function findApiKeyByHash(db: Db, keyHash: string): ApiKeyRow | undefined {
  return statements(db).byHash.get(keyHash);
}

/** Every key, oldest first. */
export function listApiKeyRows(db: Db): ApiKeyRow[] {
  return statements(db).all.all();
}

/** How many keys exist, revoked ones included. */
export function countApiKeys(db: Db): number {
  return statements(db).count.get()?.n ?? 0;
}

/** Marks a key revoked (keeping the first revocation time); undefined when no key has this id. */
export function revokeApiKeyRow(db: Db, id: string, revokedAt: string): ApiKeyRow | undefined {
  const { revoke, byId } = statements(db);
  if (revoke.run({ id, revoked_at: revokedAt }).changes === 0) return undefined;
  return byId.get(id);
}

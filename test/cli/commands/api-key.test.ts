// `clinic api-key create|list|revoke` (src/cli/commands/api-key.ts): how an IT person issues, lists and revokes the integrations' keys (decisions.md §2 and §8; clinic-api-1.2.md, "Failed keys": --rate-limit N).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { forPeople, jsonOf, refusalOf } from '../../helpers/desk-output.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { runClinic, unwrapped } from '../../helpers/run-cli.js';

interface ListedKey {
  id: string;
  name: string;
  scopes: string[];
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
}

/** `iso` as the desk writes it in a clinic 14 hours ahead of UTC (Etc/GMT-14): `Tue 01.12.2026 09:31`. */
const fourteenHoursAhead = (iso: string) => {
  const shifted = new Date(Date.parse(iso) + 14 * 3_600_000);
  const text = shifted.toISOString();
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][shifted.getUTCDay()];
  return `${weekday} ${text.slice(8, 10)}.${text.slice(5, 7)}.${text.slice(0, 4)} ${text.slice(11, 16)}`;
};

describe('clinic api-key', () => {
  const data = useTestDatabase();
  const clinic = (...args: string[]) => runClinic([...args, '--data', data.dataDir]);
  const listed = async () => jsonOf<ListedKey[]>(await clinic('api-key', 'list', '--json'));
  before(() => setClinicTimeZone(data.db, 'Etc/GMT-14'));

  it('says how to issue a key while there is none', async () => {
    assert.equal(forPeople(await clinic('api-key', 'list')), 'No API keys. `clinic api-key create --name NAME` issues one.\n');
  });

  it('prints a new key once for people: its secret, id, scopes, own limit and clinic time, and to store it now', async () => {
    const created = await clinic(
      'api-key',
      'create',
      '--name',
      'Empfang Tablet',
      '--scopes',
      'patients:write,lookups:read',
      '--rate-limit',
      '120',
    );
    const [key] = await listed();
    assert.ok(key !== undefined, 'the key is listed');
    const secret = /^Key {9}(clinic_\S+)$/m.exec(created.stdout)?.[1];
    assert.ok(secret !== undefined, created.stdout);
    assert.equal(
      forPeople(created, [key.id]),
      [
        'API key Empfang Tablet',
        `Key         ${secret}`,
        `Id          ${key.id}`,
        'Scopes      patients:write, lookups:read',
        'Rate limit  120 requests per minute',
        `Created     ${fourteenHoursAhead(key.created_at)}`,
        '',
        'Store the key now: it is not shown again.',
        '',
      ].join('\n'),
    );
    assert.ok(!(await clinic('api-key', 'list')).stdout.includes(secret), 'never shown again');
  });

  it('prints --json as decisions.md §8 names it, the key once, and a key of every scope without --scopes', async () => {
    const created = jsonOf<Record<string, unknown>>(await clinic('api-key', 'create', '--name', 'Labor', '--json'));
    assert.deepEqual(Object.keys(created), ['id', 'name', 'key', 'scopes', 'created_at']);
    assert.match(String(created.key), /^clinic_[A-Za-z0-9_-]{43}$/);
    assert.ok((created.scopes as string[]).length >= 6, 'every scope');
    const labor = (await listed()).find((key) => key.name === 'Labor');
    assert.deepEqual([labor?.id, labor?.rate_limit_per_minute], [created.id, null]);
    assert.equal(JSON.stringify(await listed()).includes(String(created.key)), false, 'the list never holds a secret');
  });

  it('lists a block per key, its scopes wrapped within 100 columns, a revoked key marked and dated in clinic time', async () => {
    const labor = (await listed()).find((key) => key.name === 'Labor')!;
    assert.equal((await clinic('api-key', 'revoke', 'Labor')).code, 0);
    const revokedAt = (await listed()).find((key) => key.name === 'Labor')!.revoked_at!;
    const text = forPeople(
      await clinic('api-key', 'list'),
      (await listed()).map((key) => key.id),
    );
    assert.match(text, new RegExp(`^Labor \\(revoked\\)\nId {10}${labor.id}\nScopes {6}patients:read, `, 'm'));
    assert.match(text, /^ {12}\S.*\nRate limit {2}none\n/m, 'the scopes go on under themselves');
    assert.match(text, new RegExp(`\nRevoked {5}${fourteenHoursAhead(revokedAt)}\n`));
    assert.match(text, /^Empfang Tablet\nId /m, 'a key in use is not marked');
  });

  it('revokes a key by its name in any case or by its id, saying so in clinic time; exit 1 for a name in use by none', async () => {
    const tablet = (await listed()).find((key) => key.name === 'Empfang Tablet')!;
    const revoked = await clinic('api-key', 'revoke', 'empfang TABLET');
    const at = (await listed()).find((key) => key.id === tablet.id)!.revoked_at!;
    assert.equal(
      unwrapped(forPeople(revoked, [tablet.id])),
      `Revoked the key Empfang Tablet (${tablet.id}) at ${fourteenHoursAhead(at)}; it is refused from now on, also by a running server.\n`,
    );
    // Revoked, its name is in use by no key: refused as unknown, with where to look.
    const again = await clinic('api-key', 'revoke', 'Empfang Tablet');
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /^error: API_KEY_NOT_FOUND: No API key in use is named "Empfang Tablet", and it is no id\.\nhint: `clinic api-key list` shows every key's name and id\n$/,
    );
    // By its id, in capitals too; once more by its id, it keeps the time it was first revoked.
    const fresh = jsonOf<{ id: string }>(await clinic('api-key', 'create', '--name', 'Kasse', '--json'));
    const first = jsonOf<ListedKey>(await clinic('api-key', 'revoke', fresh.id.toUpperCase(), '--json'));
    assert.deepEqual([first.id, first.name, typeof first.revoked_at], [fresh.id, 'Kasse', 'string']);
    assert.equal(jsonOf<ListedKey>(await clinic('api-key', 'revoke', fresh.id, '--json')).revoked_at, first.revoked_at);
    assert.equal(refusalOf(await clinic('api-key', 'revoke', 'Kasse', '--json')).code, 'API_KEY_NOT_FOUND');
  });
});

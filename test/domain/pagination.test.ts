import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { setClinicTimeZone } from '../../src/domain/settings.js';
import { buildInvoice, createTestPatient } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';
import { multipartBody } from '../helpers/multipart.js';
import type { TestServer } from '../helpers/test-server.js';

// Pagination of interface 1.1.0 (clinic-api-1.1.md, "Pagination"): limit/after and the Link
// header on GET /patients, /appointments, /patients/{patient_id}/documents and /invoices.

const PREFIX = '/api/public/v1';

interface Page {
  status: number;
  ids: string[];
  /** The Link header, or null. */
  link: string | null;
  body: any;
  text: string;
}

/** GET `pathAndQuery` (relative to the API prefix). */
async function getPage(server: TestServer, pathAndQuery: string): Promise<Page> {
  const response = await server.request('GET', pathAndQuery);
  const ids = Array.isArray(response.body) ? response.body.map((item: { id: string }) => item.id) : [];
  return { status: response.status, ids, link: response.headers.get('link'), body: response.body, text: response.text };
}

/** The target of a `Link: <…>; rel="next"` header: the path and query, which must start with the API prefix. */
function nextTarget(link: string): string {
  const match = /^<([^<>]*)>; rel="next"$/.exec(link);
  assert.ok(match, `Link: ${link}`);
  assert.ok(match[1]!.startsWith(`${PREFIX}/`), `the Link names the request's own path: ${link}`);
  return match[1]!;
}

/** The query parameters of a path-and-query, decoded, in order. */
const paramsOf = (pathAndQuery: string) => [...new URL(pathAndQuery, 'http://localhost').searchParams.entries()];

/**
 * Follows the Link headers from `first` to the last page, calling `between` after each page;
 * asserts that every page but the last is exactly `limit` long. Returns the ids in order.
 */
async function walk(server: TestServer, first: string, limit: number, between: (page: number) => unknown = () => {}): Promise<string[]> {
  const ids: string[] = [];
  let target: string | null = first;
  for (let page = 0; target !== null; page++) {
    assert.ok(page < 100, 'the walk ends');
    const current = await getPage(server, target);
    assert.equal(current.status, 200, current.text);
    ids.push(...current.ids);
    if (page > 0) assert.ok(current.ids.length > 0, 'a Link leads to a page with items: no Link when nothing follows');
    if (current.link === null) {
      assert.ok(current.ids.length <= limit);
      target = null;
    } else {
      assert.equal(current.ids.length, limit, 'a page is shorter than limit only when it is the last');
      target = nextTarget(current.link).slice(PREFIX.length);
      await between(page);
    }
  }
  return ids;
}

/** Asserts that `seen` holds no id twice and every id of `existing` in the same relative order. */
function assertNothingRepeatedOrSkipped(seen: string[], existing: string[]): void {
  assert.equal(new Set(seen).size, seen.length, 'no item appears twice');
  assert.deepEqual(
    seen.filter((id) => existing.includes(id)),
    existing,
    'every item that existed before the walk appears once, in order',
  );
}

/** Uploads a small document for `patientId`; returns its id. */
async function upload(server: TestServer, patientId: string, data: string): Promise<string> {
  const { body, contentType } = multipartBody([{ name: 'file', filename: 'note.txt', contentType: 'text/plain', data }]);
  const response = await server.request('POST', `/patients/${patientId}/documents`, {
    rawBody: body,
    headers: { 'content-type': contentType },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.id;
}

/** Books an appointment of 15 minutes on 2026-12-01 (UTC) `minutes` after 08:00; returns its id. */
async function book(server: TestServer, patientId: string, minutes: number): Promise<string> {
  const start = Date.parse('2026-12-01T08:00:00Z') + minutes * 60_000;
  const response = await server.request('POST', '/appointments', {
    body: { patient_id: patientId, start_at: new Date(start).toISOString(), end_at: new Date(start + 15 * 60_000).toISOString() },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.id;
}

/**
 * One list of the four, in a database of its own: `seed` makes its first items, `insert` one more
 * (the n-th), `query` is what the tests send besides limit and after, and `order` lists the ids
 * in the order the list must give them.
 */
interface ListUnderTest {
  name: string;
  path: (ctx: Context) => string;
  query: (ctx: Context) => string;
  seed: (ctx: Context, count: number) => Promise<void>;
  insert: (ctx: Context, n: number) => Promise<void>;
  order: (ctx: Context) => string[];
  /** The default limit when none is sent: 50, or the whole list for GET /invoices. */
  defaultLimit: number | 'all';
}

interface Context {
  server: TestServer;
  patientId: string;
  /** Ids by sort key, for `order`. */
  items: { id: string; key: string | number }[];
}

const lists: ListUnderTest[] = [
  {
    name: 'GET /patients',
    path: () => '/patients',
    query: () => 'q=paginated',
    async seed(ctx, count) {
      for (let n = 0; n < count; n++) await this.insert(ctx, n);
    },
    async insert(ctx, n) {
      // Last names spread over the alphabet, so that new ones land before, among and after the old.
      const last = `Paginated ${String.fromCharCode(97 + ((n * 7) % 26))}${String(n).padStart(3, '0')}`;
      const patient = createTestPatient(ctx.server.db, { first_name: 'Page', last_name: last });
      ctx.items.push({ id: patient.id, key: last.toLowerCase() });
    },
    order: (ctx) => [...ctx.items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((i) => i.id),
    defaultLimit: 50,
  },
  {
    name: 'GET /appointments',
    path: () => '/appointments',
    query: (ctx) => `from=2026-12-01&patient_id=${ctx.patientId}`,
    async seed(ctx, count) {
      for (let n = 0; n < count; n++) await this.insert(ctx, n);
    },
    async insert(ctx, n) {
      // Start times spread over the day (UTC), so that new ones land before, among and after the old.
      const minutes = ((n * 37) % 53) * 15 + (n % 7);
      ctx.items.push({ id: await book(ctx.server, ctx.patientId, minutes), key: minutes * 1_000_000 + n });
    },
    order: (ctx) => [...ctx.items].sort((a, b) => Number(a.key) - Number(b.key)).map((i) => i.id),
    defaultLimit: 50,
  },
  {
    name: 'GET /patients/{patient_id}/documents',
    path: (ctx) => `/patients/${ctx.patientId}/documents`,
    query: () => '',
    async seed(ctx, count) {
      for (let n = 0; n < count; n++) await this.insert(ctx, n);
    },
    async insert(ctx, n) {
      ctx.items.push({ id: await upload(ctx.server, ctx.patientId, `document ${n}`), key: n });
      // Newest first needs uploads that are apart in time.
      await new Promise((resolve) => setTimeout(resolve, 3));
    },
    order: (ctx) => [...ctx.items].sort((a, b) => Number(b.key) - Number(a.key)).map((i) => i.id),
    defaultLimit: 50,
  },
  {
    name: 'GET /invoices',
    path: () => '/invoices',
    query: (ctx) => `patient_id=${ctx.patientId}&unpaid=true`,
    async seed(ctx, count) {
      for (let n = 0; n < count; n++) await this.insert(ctx, n);
    },
    async insert(ctx, n) {
      // Issue dates spread over the year, so that new ones land before, among and after the old.
      const day = ((n * 37) % 300) + 1;
      const issuedAt = new Date(Date.parse('2026-01-01T10:00:00Z') + day * 86_400_000 + n * 1000).toISOString();
      const invoice = createInvoice(ctx.server.db, buildInvoice(ctx.patientId, { total: '10.00', issued_at: issuedAt }));
      ctx.items.push({ id: invoice.id, key: issuedAt });
    },
    order: (ctx) => [...ctx.items].sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0)).map((i) => i.id),
    defaultLimit: 'all',
  },
];

for (const list of lists) {
  describe(`${list.name}: pagination`, () => {
    const server = useTestServer();
    const ctx = {} as Context;
    const SEEDED = 7;
    /** path?query&`extra`, with whatever query the list always sends. */
    const url = (extra = '') => {
      const query = [list.query(ctx), extra].filter((part) => part !== '').join('&');
      return `${list.path(ctx)}${query === '' ? '' : `?${query}`}`;
    };

    before(async () => {
      setClinicTimeZone(server.db, 'UTC');
      Object.assign(ctx, {
        server,
        patientId: createTestPatient(server.db, { first_name: 'Owner', last_name: 'Ofeverything' }).id,
        items: [],
      });
      await list.seed(ctx, SEEDED);
    });

    it('answers a bare array of limit items and a Link of the exact form <{path}?{query}>; rel="next"', async () => {
      const page = await getPage(server, url('limit=3'));
      assert.equal(page.status, 200, page.text);
      assert.ok(Array.isArray(page.body));
      assert.deepEqual(page.ids, list.order(ctx).slice(0, 3));
      const match = /^<([^<>]*)&after=([^&<>]+)>; rel="next"$/.exec(page.link ?? '');
      assert.ok(match, `Link: ${page.link}`);
      assert.equal(match[1], `${PREFIX}${url('limit=3')}`, 'every other parameter as sent, then after=');
    });

    it('follows the Link pages to the end, without a Link on the last page', async () => {
      assert.deepEqual(await walk(server, url('limit=3'), 3), list.order(ctx));
    });

    it('keeps every other parameter as sent, wherever after stood, and replaces after', async () => {
      const first = await getPage(server, url('limit=2'));
      const after = new URL(nextTarget(first.link!), 'http://localhost').searchParams.get('after')!;
      // after first, then the others, plus one the server does not know.
      const sent = `${list.path(ctx)}?after=${encodeURIComponent(after)}&${[list.query(ctx), 'limit=2', 'extra=x%20y'].filter(Boolean).join('&')}`;
      const second = await getPage(server, sent);
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(second.ids, list.order(ctx).slice(2, 4));
      const target = nextTarget(second.link!);
      assert.equal(new URL(target, 'http://localhost').pathname, `${PREFIX}${list.path(ctx)}`);
      const params = paramsOf(target);
      assert.deepEqual(
        params.filter(([name]) => name !== 'after'),
        paramsOf(sent).filter(([name]) => name !== 'after'),
      );
      assert.equal(params.filter(([name]) => name === 'after').length, 1, 'one after');
      assert.equal(params.at(-1)![0], 'after', 'after= added after the other parameters');
      assert.notEqual(params.at(-1)![1], after, 'the cursor of the next page');
    });

    it("names the request's own path in the Link, as sent", async () => {
      const sentPath = list.path(ctx).replace(ctx.patientId, ctx.patientId.toUpperCase());
      const query = [list.query(ctx), 'limit=1'].filter(Boolean).join('&');
      const page = await getPage(server, `${sentPath}?${query}`);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.link?.startsWith(`<${PREFIX}${sentPath}?`), `Link: ${page.link}`);
    });

    it('sends no Link when the last page is exactly full', async () => {
      const all = list.order(ctx);
      const whole = await getPage(server, url(`limit=${all.length}`));
      assert.deepEqual([whole.ids, whole.link], [all, null]);
      // 7 items by 1: the seventh page is full and the last.
      assert.deepEqual(await walk(server, url('limit=1'), 1), all);
    });

    it('accepts limit 1 and 200', async () => {
      assert.equal((await getPage(server, url('limit=1'))).ids.length, 1);
      const most = await getPage(server, url('limit=200'));
      assert.deepEqual([most.status, most.ids.length, most.link], [200, list.order(ctx).length, null]);
    });

    const limits: [string, string][] = [
      ['0', 'greater_than_equal'],
      ['-1', 'greater_than_equal'],
      ['201', 'less_than_equal'],
      ['abc', 'int_parsing'],
      ['1.5', 'int_parsing'],
      ['', 'int_parsing'],
    ];
    for (const [value, type] of limits) {
      it(`refuses limit=${value} with 422 ${type} at ["query","limit"]`, async () => {
        const page = await getPage(server, url(`limit=${value}`));
        assert.equal(page.status, 422, page.text);
        assert.deepEqual(
          page.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
          [[type, ['query', 'limit']]],
        );
      });
    }

    for (const cursor of ['not-a-cursor', 'not a cursor!', 'eyJ4IjoxfQ']) {
      it(`refuses the malformed cursor after=${JSON.stringify(cursor)} with 422 value_error at ["query","after"]`, async () => {
        const page = await getPage(server, url(`limit=2&after=${encodeURIComponent(cursor)}`));
        assert.equal(page.status, 422, page.text);
        assert.deepEqual(
          page.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]),
          [['value_error', ['query', 'after']]],
        );
      });
    }

    it('reports a bad limit and a malformed cursor together', async () => {
      const page = await getPage(server, url('limit=0&after=not-a-cursor'));
      assert.equal(page.status, 422, page.text);
      assert.deepEqual(page.body.detail.map((d: { type: string; loc: string[] }) => `${d.type} ${d.loc.join('.')}`).sort(), [
        'greater_than_equal query.limit',
        'value_error query.after',
      ]);
    });

    it('never repeats or skips an item when new ones are created between page requests', async () => {
      const existing = list.order(ctx);
      let n = 1000;
      const seen = await walk(server, url('limit=2'), 2, async () => {
        // Three new items between every two pages: they sort before, among and after the old ones.
        for (let i = 0; i < 3; i++) await list.insert(ctx, n++);
      });
      assertNothingRepeatedOrSkipped(seen, existing);
      // The list is whole again once the walk is done.
      assert.deepEqual(await walk(server, url('limit=200'), 200), list.order(ctx));
    });

    it(list.defaultLimit === 'all' ? 'answers the whole list without limit, as in 1.0.0' : 'pages by 50 without limit', async () => {
      const have = list.order(ctx).length;
      for (let n = have; n < 51; n++) await list.insert(ctx, 2000 + n);
      const all = list.order(ctx);
      assert.ok(all.length >= 51);
      const first = await getPage(server, url());
      assert.equal(first.status, 200, first.text);
      if (list.defaultLimit === 'all') {
        assert.deepEqual([first.ids, first.link], [all, null]);
        return;
      }
      assert.deepEqual(first.ids, all.slice(0, 50));
      const match = /^<([^<>]*)after=([^&<>]+)>; rel="next"$/.exec(first.link ?? '');
      assert.ok(match, `Link: ${first.link}`);
      assert.equal(match[1], `${PREFIX}${url()}${list.query(ctx) === '' ? '?' : '&'}`, 'no limit in the Link: it was not sent');
      assert.deepEqual(await walk(server, url(), 50), all);
    });
  });
}

describe('pagination over items that sort alike', () => {
  const server = useTestServer();
  let patientId: string;

  before(() => {
    setClinicTimeZone(server.db, 'UTC');
    patientId = createTestPatient(server.db, { first_name: 'Owner', last_name: 'Ofties' }).id;
  });

  /** Walks `first` page by page (limit 1 and 2) and asserts that it yields each of `ids` exactly once. */
  async function assertWalksEachOnce(first: (limit: number) => string, ids: string[], ordered: boolean): Promise<void> {
    for (const limit of [1, 2]) {
      const seen = await walk(server, first(limit), limit);
      if (ordered) assert.deepEqual(seen, ids);
      else assert.deepEqual([...seen].sort(), [...ids].sort());
    }
  }

  it('GET /patients: the same name, ordered by patient_number', async () => {
    const ids = Array.from({ length: 5 }, () => createTestPatient(server.db, { first_name: 'Sam', last_name: 'Twin' }).id);
    await assertWalksEachOnce((limit) => `/patients?q=twin&limit=${limit}`, ids, true);
  });

  it('GET /appointments: the same start, ordered by appointment_number', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await book(server, patientId, 60));
    await assertWalksEachOnce((limit) => `/appointments?from=2026-12-01&patient_id=${patientId}&limit=${limit}`, ids, true);
  });

  it('GET /patients/{patient_id}/documents: documents uploaded at the same moment', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => upload(server, patientId, `same moment ${i}`)));
    await assertWalksEachOnce((limit) => `/patients/${patientId}/documents?limit=${limit}`, ids, false);
  });

  it('GET /invoices: invoices issued at the same instant', async () => {
    const ids = Array.from(
      { length: 5 },
      () => createInvoice(server.db, buildInvoice(patientId, { total: '1.00', issued_at: '2026-05-05T10:00:00Z' })).id,
    );
    await assertWalksEachOnce((limit) => `/invoices?patient_id=${patientId}&limit=${limit}`, ids, false);
  });
});

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../../src/domain/patients/create-patient.js';
import { buildPatient, text } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';

/** `{"a0":1,"a1":1,...}` with `count` members, and `extra` members first. */
function manyKeys(count: number, extra = ''): string {
  return `{${extra}${Array.from({ length: count }, (_, i) => `"a${i}":1`).join(',')}}`;
}

const ANSWER_LIMIT = 64 * 1024;

describe('hostile JSON bodies: bounded work and bounded answers', () => {
  const server = useTestServer();
  let paymentsPath: string;
  before(() => {
    const patient = createPatient(server.db, buildPatient());
    paymentsPath = `/invoices/${createInvoice(server.db, { patient_id: patient.id, total: '100.00' }).id}/payments`;
  });

  const post = (path: string, rawBody: string) =>
    server.request('POST', path, { rawBody, headers: { 'content-type': 'application/json', 'idempotency-key': 'k' } });

  it('refuses 300,000 unknown keys (3.5 MB) with a short 422 json_invalid where the 1001st member starts', async () => {
    const body = manyKeys(300_000);
    const position = manyKeys(1000).length; // just past the comma after the 1000th member
    for (const path of ['/appointments', '/patients', paymentsPath]) {
      const response = await post(path, body);
      assert.equal(response.status, 422, path);
      assert.ok(response.text.length < 1024, `${path}: ${response.text.length} bytes`);
      assert.deepEqual(response.body.detail, [
        {
          type: 'json_invalid',
          loc: ['body', position],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'an object has more than 1000 members' },
        },
      ]);
    }
  });

  it('takes an object of 1000 members, keys with escaped quotes and backslashes counted right, and refuses 1001', async () => {
    // Keys ending in an escaped backslash or holding an escaped quote must not end or start a string early.
    const tricky = '"a\\\\":1,"b\\"c":1,"\\\\\\"":1,';
    const patient = JSON.stringify(buildPatient()).slice(1, -1);
    const fits = manyKeys(1000 - 3 - 4, `${tricky}${patient},`);
    assert.equal((await post('/patients', fits)).status, 201);
    const over = manyKeys(1001 - 3 - 4, `${tricky}${patient},`);
    const refused = await post('/patients', over);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.detail[0].ctx.error, 'an object has more than 1000 members');
    // Malformed before the bound: reported where it is malformed, as any invalid JSON.
    const malformed = await post('/patients', `{"x":1 ${manyKeys(2000).slice(1)}`);
    assert.equal(malformed.status, 422);
    assert.deepEqual(malformed.body.detail[0].loc, ['body', 7]);
    assert.notEqual(malformed.body.detail[0].ctx.error, 'an object has more than 1000 members');
  });

  it('takes 100,000 values in a body and refuses 100,001 with 422 json_invalid', async () => {
    const patient = JSON.stringify(buildPatient()).slice(1, -1);
    // The top-level object, 4 members of the patient, the list member `x`: 6 values besides the items.
    const withItems = (items: number) => `{${patient},"x":[${Array(items).fill('0').join(',')}]}`;
    assert.equal((await post('/patients', withItems(100_000 - 6))).status, 201);
    const refused = await post('/patients', withItems(100_000 - 5));
    assert.equal(refused.status, 422);
    assert.equal(refused.body.detail[0].type, 'json_invalid');
    assert.equal(refused.body.detail[0].ctx.error, 'the body has more than 100000 values');
    assert.deepEqual(refused.body.detail[0].loc, ['body', withItems(100_000 - 5).lastIndexOf('0')]);
  });

  it('answers a body of long unknown values without its required fields in under 64 KiB, echoes cut with a marker', async () => {
    // 999 members of 3,500 characters each (3.5 MB), within every bound of the JSON reader.
    const body = JSON.stringify(Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`k${i}`, text(3500)])));
    for (const path of ['/appointments', '/patients', paymentsPath]) {
      const response = await post(path, body);
      assert.equal(response.status, 422, path);
      assert.ok(Buffer.byteLength(response.text) < ANSWER_LIMIT, `${path}: ${response.text.length} bytes`);
      const missing = response.body.detail.filter((i: { type: string }) => i.type === 'missing');
      assert.ok(missing.length >= 2, path);
      for (const item of missing) {
        const keys = Object.keys(item.input);
        assert.equal(item.input.k0, `${text(1000)}…+2500 more characters`);
        assert.match(item.input['…'], /^\+\d+ more keys$/);
        assert.equal(keys.length - 1 + Number(/\d+/.exec(item.input['…'])![0]), 999);
      }
    }
  });

  it('echoes a string of up to 1000 characters exactly and cuts a longer one', async () => {
    const exact = await post('/patients', JSON.stringify(buildPatient({ first_name: text(1000) })));
    assert.equal(exact.body.detail[0].input, text(1000));
    const cut = await post('/patients', JSON.stringify(buildPatient({ first_name: text(1_000_000) })));
    assert.equal(cut.status, 422);
    assert.equal(cut.body.detail[0].type, 'string_too_long');
    assert.equal(cut.body.detail[0].input, `${text(1000)}…+999000 more characters`);
  });

  it('keeps a 422 under 64 KiB for 1,024 failing long strings and for a 3 MB key in loc', async () => {
    const prefs = Object.fromEntries(Array.from({ length: 32 }, (_, k) => [`k${k}`, Array(32).fill(text(3500))]));
    const many = await post('/patients', JSON.stringify(buildPatient({ communication_prefs: prefs })));
    assert.equal(many.status, 422);
    assert.ok(Buffer.byteLength(many.text) < ANSWER_LIMIT, `${many.text.length} bytes`);
    assert.deepEqual(many.body.detail[0].loc, ['body', 'communication_prefs', 'k0', 0]);
    assert.equal(many.body.detail[0].input, `${text(1000)}…+2500 more characters`);

    const longKey = await post('/patients', JSON.stringify(buildPatient({ communication_prefs: { [text(3_000_000)]: [] } })));
    assert.equal(longKey.status, 422);
    assert.ok(Buffer.byteLength(longKey.text) < ANSWER_LIMIT, `${longKey.text.length} bytes`);
    const cutKey = `${text(1000)}…+2999000 more characters`;
    assert.deepEqual(longKey.body.detail[0].loc, ['body', 'communication_prefs', cutKey, '[key]']);
    assert.equal(longKey.body.detail[0].input, cutKey);
  });
});

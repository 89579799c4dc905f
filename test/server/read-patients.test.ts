import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import type { Patient } from '../../src/domain/patients/present-patient.js';
import { recordPayment } from '../../src/domain/payments/record-payment.js';
import { buildInvoice, buildPatient, buildPayment, createTestPatient, text } from '../helpers/builders.js';
import { useTestServer } from '../helpers/fixtures.js';

// GET /patients and GET /patients/{patient_id} of interface 1.1.0 (clinic-api-1.1.md), black box over HTTP.

/** The fields of a PatientSummary, exactly. */
const SUMMARY_KEYS = [
  'id',
  'patient_number',
  'first_name',
  'last_name',
  'date_of_birth',
  'email',
  'mobile',
  'is_active',
  'outstanding_balance',
  'outstanding_currency',
  'outstanding_balances',
].sort();

/** The [type, loc] of each item of a 422 detail array. */
const issuesOf = (body: any): [string, unknown[]][] => body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc]);

describe('GET /patients?q=', () => {
  const server = useTestServer();
  /** The patients of the search cases, by a short name; the rest of the 45 are fillers. */
  const named: Record<string, Patient> = {};
  /** The patient numbered P-000004 and P-000042, whoever they are. */
  let fourth: Patient;
  let fortySecond: Patient;

  before(() => {
    const specials: Record<number, [string, Record<string, unknown>]> = {
      1: [
        'hans',
        {
          first_name: 'Hans',
          last_name: 'Müller-Lüdenscheidt',
          date_of_birth: '1961-07-23',
          email: 'HM.Praxis@Example.org',
          phone: '+49 30 1234-567',
          mobile: '0660 / 98.76.543',
        },
      ],
      2: [
        'anna',
        {
          first_name: 'Anna Maria',
          last_name: 'van der Berg',
          date_of_birth: '1980-01-02',
          email: 'avdb@example.net',
          mobile: '+43 1 5550 100',
        },
      ],
      3: [
        'lukas',
        { first_name: 'Lukas', last_name: 'Muller', date_of_birth: '1961-07-24', email: 'lm@example.com', mobile: '+43 699 1111 2222' },
      ],
      4: ['zoe', { first_name: 'Zoë', last_name: 'Ludwig', date_of_birth: null, email: 'zl@example.com', mobile: '+43 699 3333 4444' }],
      42: ['grete', { first_name: 'Grete', last_name: 'Zweiundvierzig', email: 'gz@example.com', mobile: '+1 42' }],
    };
    // 45 patients in a new database: P-000001 … P-000045, so that the numbers 4 and 42 exist.
    for (let n = 1; n <= 45; n++) {
      const [name, fields] = specials[n] ?? [
        `filler${n}`,
        { first_name: 'Filler', last_name: 'Person', email: `f${n}@example.com`, mobile: `+1 ${n}` },
      ];
      named[name] = createTestPatient(server.db, fields);
    }
    fourth = Object.values(named).find((p) => p.patient_number === 'P-000004')!;
    fortySecond = Object.values(named).find((p) => p.patient_number === 'P-000042')!;
    assert.ok(fourth && fortySecond, 'a new database numbers its patients from P-000001');
  });

  /** The patient numbers GET /patients?q=`q` lists, in its order. */
  async function search(q: string): Promise<string[]> {
    const response = await server.request('GET', `/patients?q=${encodeURIComponent(q)}`);
    assert.equal(response.status, 200, response.text);
    assert.ok(Array.isArray(response.body), 'a bare JSON array');
    return response.body.map((p: { patient_number: string }) => p.patient_number);
  }
  const numbers = (...names: string[]) => names.map((name) => named[name]!.patient_number);

  const cases: { rule: string; q: string; finds: () => string[] }[] = [
    // Names: a prefix of a word of the first or last name, words split at spaces and hyphens.
    { rule: 'a prefix of the part of a hyphenated last name after the hyphen', q: 'lud', finds: () => numbers('zoe', 'hans') },
    { rule: 'a prefix of the part of a hyphenated last name before the hyphen', q: 'Mül', finds: () => numbers('lukas', 'hans') },
    { rule: 'a whole hyphenated last name', q: 'Müller-Lüdenscheidt', finds: () => numbers('hans') },
    { rule: 'a name without its accents', q: 'muller', finds: () => numbers('lukas', 'hans') },
    { rule: 'an accented word against a name without accents', q: 'MÜLLER', finds: () => numbers('lukas', 'hans') },
    { rule: 'a diaeresis dropped on a first name', q: 'zoe', finds: () => numbers('zoe') },
    { rule: 'upper case', q: 'LUKAS', finds: () => numbers('lukas') },
    { rule: 'the second word of a first name', q: 'maria', finds: () => numbers('anna') },
    { rule: 'a middle word of a last name', q: 'der', finds: () => numbers('anna') },
    { rule: 'the last word of a last name', q: 'berg', finds: () => numbers('anna') },
    { rule: 'not the middle of a name word', q: 'enscheidt', finds: () => [] },
    { rule: 'not the middle of a first name', q: 'ans', finds: () => [] },
    // Every word must match, each anywhere.
    { rule: 'two words, both matching the same patient', q: 'hans lud', finds: () => numbers('hans') },
    { rule: 'words in any order', q: 'lud hans', finds: () => numbers('hans') },
    { rule: 'several spaces between words', q: 'muller   lukas', finds: () => numbers('lukas') },
    { rule: 'nothing when one of two words matches nobody', q: 'hans ludwig', finds: () => [] },
    { rule: 'words matching different fields', q: 'muller 1961-07-23', finds: () => numbers('hans') },
    // The patient number.
    { rule: 'the patient number as printed', q: 'P-000042', finds: () => [fortySecond.patient_number] },
    { rule: 'the patient number in lower case, without zero padding', q: 'p-42', finds: () => [fortySecond.patient_number] },
    { rule: 'the patient number without zero padding, in upper case', q: 'P-42', finds: () => [fortySecond.patient_number] },
    { rule: 'the patient number in lower case with zero padding', q: 'p-000042', finds: () => [fortySecond.patient_number] },
    { rule: 'the digits of the patient number', q: '42', finds: () => [fortySecond.patient_number] },
    { rule: 'one patient number only, not those it is a prefix of', q: '4', finds: () => [fourth.patient_number] },
    { rule: 'one patient number only, not those it is a prefix of (P- form)', q: 'p-4', finds: () => [fourth.patient_number] },
    // The date of birth.
    { rule: 'the date of birth as YYYY-MM-DD', q: '1961-07-23', finds: () => numbers('hans') },
    { rule: 'the date of birth as DD.MM.YYYY', q: '23.07.1961', finds: () => numbers('hans') },
    { rule: 'only that date of birth', q: '1961-07-24', finds: () => numbers('lukas') },
    { rule: 'not a year of birth alone', q: '1961', finds: () => [] },
    // The whole email, case-insensitive.
    { rule: 'the email as stored', q: 'HM.Praxis@Example.org', finds: () => numbers('hans') },
    { rule: 'the email in lower case', q: 'hm.praxis@example.org', finds: () => numbers('hans') },
    { rule: 'the email in upper case', q: 'HM.PRAXIS@EXAMPLE.ORG', finds: () => numbers('hans') },
    { rule: 'not a part of an email', q: 'hm.praxis@example', finds: () => [] },
    { rule: 'not the domain of an email', q: 'example.org', finds: () => [] },
    // Phone and mobile: a run of their digits, for a word of at least 4 digits once + - / . are removed.
    { rule: 'the digits of a phone that holds a hyphen', q: '1234567', finds: () => numbers('hans') },
    { rule: 'a run of phone digits across a space', q: '3012', finds: () => numbers('hans') },
    { rule: 'a run of phone digits written with + and -', q: '+49-30', finds: () => numbers('hans') },
    { rule: 'a run of phone digits written with / and -', q: '30/1234-567', finds: () => numbers('hans') },
    { rule: 'a run of mobile digits written with dots', q: '98.76.543', finds: () => numbers('hans') },
    { rule: 'a run of mobile digits across a slash', q: '06609876', finds: () => numbers('hans') },
    { rule: 'the mobile, 4 digits', q: '5550', finds: () => numbers('anna') },
    { rule: 'mobile digits of another patient', q: '11112222', finds: () => numbers('lukas') },
    { rule: 'not digits of a phone that do not follow each other', q: '1235', finds: () => [] },
    { rule: 'not a run of only 3 digits', q: '567', finds: () => [] },
    { rule: 'not a word of 3 digits once the separators are removed', q: '5-6.7', finds: () => [] },
    // Words that add nothing to another (a repeat, a prefix of another word) change no answer.
    { rule: 'a word typed twice', q: 'lud LUD', finds: () => numbers('zoe', 'hans') },
    { rule: 'a prefix beside the word it begins', q: 'm mü mül muller', finds: () => numbers('lukas', 'hans') },
    { rule: 'ten words of which one narrows', q: 'h ha han hans h ha han hans l lud', finds: () => numbers('hans') },
    { rule: 'a number beside a longer number, which is no prefix of it', q: '4 42', finds: () => [] },
    { rule: 'a phone run beside a longer one', q: '1234 1234567', finds: () => numbers('hans') },
    { rule: 'a date of birth beside a name', q: '1961-07-23 1961-07-23 muller', finds: () => numbers('hans') },
  ];
  for (const { rule, q, finds } of cases) {
    it(`finds ${rule} (${JSON.stringify(q)})`, async () => {
      assert.deepEqual(await search(q), finds());
    });
  }

  it('answers each match as a PatientSummary with exactly its fields', async () => {
    const response = await server.request('GET', '/patients?q=lud');
    assert.equal(response.status, 200);
    const hans = named.hans!;
    assert.deepEqual(response.body[1], {
      id: hans.id,
      patient_number: hans.patient_number,
      first_name: 'Hans',
      last_name: 'Müller-Lüdenscheidt',
      date_of_birth: '1961-07-23',
      email: 'HM.Praxis@Example.org',
      mobile: '0660 / 98.76.543',
      is_active: true,
      outstanding_balance: '0',
      outstanding_currency: null,
      outstanding_balances: [],
    });
    assert.deepEqual(Object.keys(response.body[0]).sort(), SUMMARY_KEYS);
    assert.equal(response.body[0].date_of_birth, null);
  });

  it('accepts a q of 200 characters', async () => {
    const response = await server.request('GET', `/patients?q=${text(200)}`);
    assert.deepEqual([response.status, response.body], [200, []]);
  });

  const refusals: { title: string; query: string; type: string }[] = [
    { title: 'an empty q', query: 'q=', type: 'string_too_short' },
    { title: 'a q of 201 characters', query: `q=${text(201)}`, type: 'string_too_long' },
    {
      title: 'a q of 201 characters made of words',
      query: `q=${encodeURIComponent(`${text(100)} ${text(100)}`)}`,
      type: 'string_too_long',
    },
  ];
  for (const { title, query, type } of refusals) {
    it(`refuses ${title} with 422 ${type} at ["query","q"]`, async () => {
      const response = await server.request('GET', `/patients?${query}`);
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(issuesOf(response.body), [[type, ['query', 'q']]]);
    });
  }

  it('refuses a q of 11 words with 422 value_error at ["query","q"], reported with the other fields', async () => {
    const q = 'a b c d e f g h i j k';
    const response = await server.request('GET', `/patients?q=${encodeURIComponent(q)}&limit=0`);
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body).sort(), [
      ['greater_than_equal', ['query', 'limit']],
      ['value_error', ['query', 'q']],
    ]);
    const [issue] = response.body.detail.filter((d: { loc: unknown[] }) => d.loc[1] === 'q');
    assert.deepEqual(issue, {
      type: 'value_error',
      loc: ['query', 'q'],
      msg: 'Value error, a search may hold at most 10 words',
      input: q,
      ctx: { error: 'a search may hold at most 10 words' },
    });
  });

  it('counts the words, not the spaces: 10 words between many spaces are searched', async () => {
    assert.deepEqual(await search(`  ${'hans '.repeat(9)}    lud  `), numbers('hans'));
  });
});

describe('GET /patients: checks', () => {
  const server = useTestServer();

  it('reports a bad q and a bad limit together', async () => {
    const response = await server.request('GET', '/patients?q=&limit=abc');
    assert.equal(response.status, 422, response.text);
    assert.deepEqual(issuesOf(response.body).sort(), [
      ['int_parsing', ['query', 'limit']],
      ['string_too_short', ['query', 'q']],
    ]);
  });

  const methods: { method: string; path: () => string; allows: string[] }[] = [
    { method: 'PUT', path: () => '/patients', allows: ['GET', 'POST'] },
    { method: 'DELETE', path: () => `/patients/${randomUUID()}`, allows: ['GET', 'PATCH'] },
    { method: 'PUT', path: () => `/patients/${randomUUID()}`, allows: ['GET', 'PATCH'] },
  ];
  for (const { method, path, allows } of methods) {
    it(`answers ${method} ${path().replace(/[0-9a-f-]{36}/, '{patient_id}')} with 405 and Allow naming ${allows.join(', ')}`, async () => {
      const response = await server.request(method, path());
      assert.equal(response.status, 405, response.text);
      assert.equal(response.body.detail.code, 'METHOD_NOT_ALLOWED');
      const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim());
      for (const expected of allows) assert.ok(allow.includes(expected), `Allow: ${allow.join(', ')}`);
    });
  }
});

describe('GET /patients ordering', () => {
  const server = useTestServer();

  it('orders by last_name, then first_name, then patient_number', async () => {
    // Created in an order that neither the names nor the numbers alone would give.
    const cole = createTestPatient(server.db, { first_name: 'Anna', last_name: 'Cole' });
    const bergZeno = createTestPatient(server.db, { first_name: 'Zeno', last_name: 'Berg' });
    const bergAnnaFirst = createTestPatient(server.db, { first_name: 'Anna', last_name: 'Berg' });
    const adams = createTestPatient(server.db, { first_name: 'Zoe', last_name: 'Adams' });
    const bergAnnaSecond = createTestPatient(server.db, { first_name: 'Anna', last_name: 'Berg' });
    const expected = [adams, bergAnnaFirst, bergAnnaSecond, bergZeno, cole].map((p) => p.id);

    const all = await server.request('GET', '/patients');
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.map((p: { id: string }) => p.id),
      expected,
    );
    const berg = await server.request('GET', '/patients?q=berg');
    assert.deepEqual(
      berg.body.map((p: { id: string }) => p.id),
      [bergAnnaFirst, bergAnnaSecond, bergZeno].map((p) => p.id),
    );
  });
});

describe('GET /patients/{patient_id}', () => {
  const server = useTestServer();

  it('answers 200 with the Patient of 2.2, as POST /patients answered it', async () => {
    const created = await server.request('POST', '/patients', {
      body: buildPatient({ date_of_birth: '1990-05-06', cave: 'Latex', discount_percent: '10.50', portal_access: { xrays: true } }),
    });
    assert.equal(created.status, 201, created.text);
    const response = await server.request('GET', `/patients/${created.body.id}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, created.body);
  });

  it('accepts the id in upper case', async () => {
    const patient = createTestPatient(server.db);
    const response = await server.request('GET', `/patients/${patient.id.toUpperCase()}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.id, patient.id);
  });

  it('shows the outstanding balance as it stands now, in GET /patients as well', async () => {
    const patient = createTestPatient(server.db, { first_name: 'Owing', last_name: 'Balancewright' });
    const first = createInvoice(server.db, buildInvoice(patient.id, { total: '120.50' }));
    createInvoice(server.db, buildInvoice(patient.id, { total: '30.00' }));
    const balanceOf = async () => {
      const one = await server.request('GET', `/patients/${patient.id}`);
      const found = await server.request('GET', '/patients?q=balancewright');
      assert.equal(one.status, 200, one.text);
      assert.equal(typeof one.body.outstanding_balance, 'string');
      assert.equal(found.body[0].outstanding_balance, one.body.outstanding_balance);
      assert.equal(found.body[0].outstanding_currency, one.body.outstanding_currency);
      return [Number(one.body.outstanding_balance), one.body.outstanding_currency];
    };
    assert.deepEqual(await balanceOf(), [150.5, 'EUR']);

    recordPayment(server.db, { path: { invoice_id: first.id }, headers: {}, body: buildPayment({ amount: '20.25' }) });
    assert.deepEqual(await balanceOf(), [130.25, 'EUR']);

    const paid = await server.request('POST', `/invoices/${first.id}/payments`, { body: buildPayment({ amount: '100.25' }) });
    assert.equal(paid.status, 200, paid.text);
    assert.deepEqual(await balanceOf(), [30, 'EUR']);
  });

  it('answers "0" and a null currency once every invoice is paid', async () => {
    const patient = createTestPatient(server.db);
    const invoice = createInvoice(server.db, buildInvoice(patient.id, { total: '40.00' }));
    recordPayment(server.db, { path: { invoice_id: invoice.id }, headers: {}, body: buildPayment({ amount: '40.00' }) });
    const response = await server.request('GET', `/patients/${patient.id}`);
    assert.equal(response.status, 200, response.text);
    assert.equal(Number(response.body.outstanding_balance), 0);
    assert.equal(response.body.outstanding_currency, null);
  });

  it('answers 404 PATIENT_NOT_FOUND for an unknown id', async () => {
    const response = await server.request('GET', `/patients/${randomUUID()}`);
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.detail.code, 'PATIENT_NOT_FOUND');
  });

  for (const id of ['not-a-uuid', 'P-000001', '42', `${randomUUID()}0`]) {
    it(`refuses the malformed id ${JSON.stringify(id)} with 422 uuid_parsing at ["path","patient_id"]`, async () => {
      const response = await server.request('GET', `/patients/${id}`);
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(issuesOf(response.body), [['uuid_parsing', ['path', 'patient_id']]]);
    });
  }
});

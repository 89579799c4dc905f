import assert from 'node:assert/strict';
import type { FieldSpec } from '../../../src/fields/field-spec.js';
import { before, describe, it } from 'node:test';
import { PATIENT_INPUT_FIELDS } from '../../../src/fields/patient-fields.js';
import type { Patient } from '../../../src/domain/patients/present-patient.js';
import { buildInvoice, buildPatient, buildPayment, createTestPatient, text } from '../../helpers/builders.js';
import { useTestServer } from '../../helpers/fixtures.js';
import { randomUUID } from 'node:crypto';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { recordPayment } from '../../../src/domain/payments/record-payment.js';

const PORTAL_KEYS = ['invoices', 'quotations', 'xrays', 'scans', 'prescriptions', 'consent', 'communications', 'other'];

/** Every length limit of spec section 8, as [field, max]. */
const MAX_LENGTHS: [string, number][] = [
  ['first_name', 128],
  ['last_name', 128],
  ['email', 320],
  ['mobile', 32],
  ['phone', 32],
  ['fax', 32],
  ['employer_phone', 32],
  ['tin', 64],
  ['billing_tariff', 64],
  ['insurance_category', 32],
  ['supplemental_insurance_label', 128],
  ['occupation', 128],
  ['bank_name', 128],
  ['bank_bic', 16],
  ['bank_iban', 40],
  ['address_country', 2],
  ['insurance_country', 2],
  ['visit_address_country', 2],
  ['employer_country', 2],
];

/** A value of exactly `length` characters that is valid for `field` (email must keep its @). */
function valueOfLength(field: string, length: number): string {
  return field === 'email' ? `${text(length - 12)}@example.org` : text(length);
}

describe('POST /patients', () => {
  const server = useTestServer();

  const post = (body: unknown, options = {}) => server.request('POST', '/patients', { body, ...options });

  it('creates a patient with defaults applied and returns 201 with the full Patient', async () => {
    const response = await post(buildPatient());
    assert.equal(response.status, 201);
    const patient = response.body;
    assert.match(patient.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(patient.patient_number, /^P-\d{6}$/);
    assert.equal(patient.is_active, true);
    assert.match(patient.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(patient.updated_at, patient.created_at);
    assert.equal(patient.outstanding_balance, '0');
    assert.equal(patient.outstanding_currency, null);
    assert.equal(patient.discount_percent, '0');
    assert.equal(patient.recall_contact_count, 0);
    assert.equal(patient.visit_address_same_as_main, true);
    assert.equal(patient.gdpr_consent, false);
    assert.equal(patient.insurer_code, null);
    assert.equal(patient.last_panoramic_date, null);
    assert.equal(patient.communication_prefs, null);
    assert.deepEqual(patient.portal_access, Object.fromEntries(PORTAL_KEYS.map((k) => [k, false])));
    assert.equal('link_existing_portal_user' in patient, false);
    for (const spec of PATIENT_INPUT_FIELDS.filter((s: FieldSpec) => !s.requestOnly)) {
      assert.ok(spec.name in patient, `response lacks ${spec.name}`);
    }
  });

  it('gives each patient the next patient number', async () => {
    const first = await post(buildPatient());
    const second = await post(buildPatient());
    const n = (p: { patient_number: string }) => Number(p.patient_number.slice(2));
    assert.equal(n(second.body), n(first.body) + 1);
  });

  it('round-trips every field of the request', async () => {
    const body = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      salutation: 'Ms',
      title: 'Dr.',
      gender: 'female',
      date_of_birth: '1815-12-10',
      avatar: 'data:image/png;base64,AAAA',
      email: 'ada@example.org',
      mobile: '+43 660 1',
      phone: '+43 1 2',
      fax: '+43 1 3',
      address_street: 'Main St 1',
      address_zip: '1010',
      address_city: 'Vienna',
      address_state: 'W',
      address_country: 'AT',
      insurance_type: 'public',
      insurer_name: 'ÖGK',
      insurance_number: '1234 010180',
      supplemental_insurance: 'none',
      insurer_id: '3f2a1c4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      billing_recipient: 'self',
      reference_number: 'R-1',
      tin: 'ATU123',
      recall_date: '2027-01-31',
      recall_type: 'checkup',
      classification: 'A',
      cave: 'penicillin',
      notes: 'likes mornings',
      gdpr_consent: true,
      gdpr_consent_date: '2026-11-01',
      insured_status: 'member',
      billing_tariff: 'T1',
      insurance_category: 'C',
      insurance_country: 'AT',
      insurance_note: 'n',
      prescription_fee_exempt: true,
      is_doctor_relative: true,
      has_disability: true,
      has_supplemental_insurance: true,
      supplemental_insurance_label: 'extra',
      supplemental_insurance_copies: 2,
      recall_manual_month: 3,
      recall_manual_year: 2027,
      recall_contact_count: 4,
      recall_last_contact_at: '2026-10-10',
      recall_hygiene_interval_months: 6,
      recall_checkup_interval_months: 12,
      recall_blocked: true,
      visit_address_street: 'Side St 2',
      visit_address_zip: '1020',
      visit_address_city: 'Vienna',
      visit_address_country: 'AT',
      visit_address_same_as_main: false,
      occupation: 'mathematician',
      employer_name: 'Babbage Ltd',
      employer_street: 'Engine Rd',
      employer_zip: 'N1',
      employer_city: 'London',
      employer_country: 'GB',
      employer_phone: '+44 20 1',
      referrer_name: 'Dr. B',
      referral_reason: 'pain',
      gp_name: 'Dr. G',
      referral_date: '2026-09-09',
      discount_percent: '10.50',
      dunning_blocked: true,
      bank_name: 'Bank',
      bank_bic: 'BKAUATWW',
      bank_iban: 'AT611904300234573201',
      last_anamnesis_date: '2026-08-08',
      mandant_user_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
      newsletter_opt_in: true,
      suppress_payment_slip: true,
      appointments_blocked: true,
      consent_presentations: true,
      contact_consent: true,
      communication_prefs: { email: ['invoices', 'recalls'], sms: [] },
      portal_access: Object.fromEntries(PORTAL_KEYS.map((k) => [k, true])),
      reminders_opt_out: true,
    };
    const sent = PATIENT_INPUT_FIELDS.filter((s: FieldSpec) => !s.requestOnly).map((s) => s.name);
    assert.deepEqual(Object.keys(body).sort(), [...sent].sort(), 'the test sends every field');
    const response = await post({ ...body, link_existing_portal_user: true });
    assert.equal(response.status, 201, response.text);
    for (const [key, value] of Object.entries(body)) assert.deepEqual(response.body[key], value, key);
  });

  for (const [field, max] of MAX_LENGTHS) {
    it(`accepts a ${max}-character ${field} and rejects ${max + 1}`, async () => {
      const ok = await post(buildPatient({ [field]: valueOfLength(field, max) }));
      assert.equal(ok.status, 201, ok.text);
      const tooLong = await post(buildPatient({ [field]: valueOfLength(field, max + 1) }));
      assert.equal(tooLong.status, 422);
      assert.deepEqual(tooLong.body.detail, [
        {
          type: 'string_too_long',
          loc: ['body', field],
          msg: `String should have at most ${max} character${max === 1 ? '' : 's'}`,
          input: valueOfLength(field, max + 1),
          ctx: { max_length: max },
        },
      ]);
    });
  }

  it('accepts a 2,000,000-character avatar and rejects 2,000,001', async () => {
    const ok = await post(buildPatient({ avatar: text(2_000_000) }));
    assert.equal(ok.status, 201);
    assert.equal(ok.body.avatar.length, 2_000_000);
    const tooLong = await post(buildPatient({ avatar: text(2_000_001) }));
    assert.equal(tooLong.status, 422);
    assert.equal(tooLong.body.detail[0].type, 'string_too_long');
  });

  it('counts characters, not UTF-16 units: 128 emoji fit in first_name', async () => {
    const ok = await post(buildPatient({ first_name: '😀'.repeat(128) }));
    assert.equal(ok.status, 201);
    const tooLong = await post(buildPatient({ first_name: '😀'.repeat(129) }));
    assert.equal(tooLong.status, 422);
  });

  it('rejects an empty first_name as string_too_short', async () => {
    const response = await post(buildPatient({ first_name: '' }));
    assert.equal(response.status, 422);
    assert.deepEqual(response.body.detail[0], {
      type: 'string_too_short',
      loc: ['body', 'first_name'],
      msg: 'String should have at least 1 character',
      input: '',
      ctx: { min_length: 1 },
    });
  });

  it('reports every failing field at once', async () => {
    const response = await post({ first_name: 5, gdpr_consent: 'true', date_of_birth: '2025-02-30', portal_access: null });
    assert.equal(response.status, 422);
    const found = response.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc.join('.'), d.type]);
    assert.deepEqual(found, [
      ['body.first_name', 'string_type'],
      ['body.last_name', 'missing'],
      ['body.date_of_birth', 'date_parsing'],
      ['body.gdpr_consent', 'bool_type'],
      ['body.portal_access', 'dict_type'],
    ]);
    const missing = response.body.detail[1];
    assert.equal(missing.msg, 'Field required');
  });

  const badValues: [string, unknown, string][] = [
    ['first_name', null, 'string_type'],
    ['first_name', ['a'], 'string_type'],
    ['salutation', 5, 'string_type'],
    ['gdpr_consent', 'true', 'bool_type'],
    ['gdpr_consent', 1, 'bool_type'],
    ['gdpr_consent', null, 'bool_type'],
    ['recall_contact_count', '5', 'int_type'],
    ['recall_contact_count', 1.5, 'int_type'],
    ['recall_contact_count', null, 'int_type'],
    ['supplemental_insurance_copies', true, 'int_type'],
    ['date_of_birth', '2025-02-30', 'date_parsing'],
    ['date_of_birth', '2025-13-01', 'date_parsing'],
    ['date_of_birth', '0000-01-01', 'date_parsing'],
    ['date_of_birth', '01.02.2025', 'date_parsing'],
    ['date_of_birth', '2025-01-01T00:00:00Z', 'date_parsing'],
    ['recall_date', 20250101, 'date_parsing'],
    ['insurer_id', 'not-a-uuid', 'uuid_parsing'],
    ['mandant_user_id', '3f2a1c4e5b6d4e7f8a9b0c1d2e3f4a5', 'uuid_parsing'],
    ['discount_percent', '', 'decimal_parsing'],
    ['discount_percent', '+', 'decimal_parsing'],
    ['discount_percent', '.', 'decimal_parsing'],
    ['discount_percent', '+.', 'decimal_parsing'],
    ['discount_percent', '1e3', 'decimal_parsing'],
    ['discount_percent', '1,5', 'decimal_parsing'],
    ['discount_percent', true, 'decimal_parsing'],
    ['discount_percent', null, 'decimal_parsing'],
    ['portal_access', null, 'dict_type'],
    ['portal_access', [], 'dict_type'],
    ['communication_prefs', [], 'dict_type'],
    ['communication_prefs', 'email', 'dict_type'],
    ['email', 'no-at-sign', 'value_error'],
    ['email', 'a@b@c', 'value_error'],
    ['email', '@example.org', 'value_error'],
    ['email', 'ada@', 'value_error'],
  ];
  for (const [field, value, type] of badValues) {
    it(`rejects ${field} = ${JSON.stringify(value)} as ${type}`, async () => {
      const response = await post(buildPatient({ [field]: value }));
      assert.equal(response.status, 422, response.text);
      assert.equal(response.body.detail.length, 1, response.text);
      assert.equal(response.body.detail[0].type, type);
      assert.deepEqual(response.body.detail[0].loc, ['body', field]);
      assert.deepEqual(response.body.detail[0].input, value);
    });
  }

  it('locates errors inside nested objects and lists', async () => {
    const response = await post(buildPatient({ portal_access: { xrays: 'yes' }, communication_prefs: { email: ['ok', 7] } }));
    assert.equal(response.status, 422);
    assert.deepEqual(
      response.body.detail.map((d: { loc: unknown[] }) => d.loc),
      [
        ['body', 'communication_prefs', 'email', 1],
        ['body', 'portal_access', 'xrays'],
      ],
    );
  });

  it('completes a partial portal_access with false', async () => {
    const response = await post(buildPatient({ portal_access: { xrays: true } }));
    assert.equal(response.status, 201);
    assert.deepEqual(response.body.portal_access, { ...Object.fromEntries(PORTAL_KEYS.map((k) => [k, false])), xrays: true });
  });

  const canonicalDiscounts: [unknown, string][] = [
    ['10.50', '10.50'],
    ['+5', '5'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['007.25', '7.25'],
    ['-3.0', '-3.0'],
    ['-0', '0'],
    [12.5, '12.5'],
    [0, '0'],
    [3, '3'],
  ];
  for (const [input, expected] of canonicalDiscounts) {
    it(`returns discount_percent ${JSON.stringify(input)} as "${expected}"`, async () => {
      const response = await post(buildPatient({ discount_percent: input }));
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.discount_percent, expected);
    });
  }

  it('stores ids lowercase whatever case they were sent in', async () => {
    const response = await post(buildPatient({ insurer_id: '3F2A1C4E-5B6D-4E7F-8A9B-0C1D2E3F4A5B' }));
    assert.equal(response.body.insurer_id, '3f2a1c4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b');
  });

  it('ignores unknown fields', async () => {
    const response = await post({ ...buildPatient(), favourite_colour: 'blue', id: 'mine' });
    assert.equal(response.status, 201);
    assert.equal('favourite_colour' in response.body, false);
    assert.notEqual(response.body.id, 'mine');
  });

  it('answers the contact rule as 422 PATIENT_CONTACT_REQUIRED, storing nothing; every case of the rule is CREATE_PATIENT’s table', async () => {
    const before = (server.db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n;
    const response = await post(buildPatient({ mobile: null }));
    assert.equal(response.status, 422);
    assert.equal(response.body.detail.code, 'PATIENT_CONTACT_REQUIRED');
    assert.equal(typeof response.body.detail.message, 'string');
    assert.equal((server.db.prepare('SELECT count(*) AS n FROM patients').get() as { n: number }).n, before, 'nothing was stored');
  });
});

/**
 * PATCH /patients/{patient_id} on the real server: its ETag, its media types, its refusals as the
 * API gives them, and what the other endpoints find after it. Its rules are UPDATE_PATIENT's table
 * (test/domain/patients/update-patient.test.ts).
 */
describe('PATCH /patients/{patient_id}', () => {
  const server = useTestServer();
  const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request('PATCH', `/patients/${id}`, { body, headers });
  const read = async (id: string) => (await server.request('GET', `/patients/${id}`)).body as Patient;
  const found = async (q: string) =>
    ((await server.request('GET', `/patients?q=${encodeURIComponent(q)}`)).body as Patient[]).map((p) => p.patient_number);

  it('sets the fields it names, counts the version up, and answers the patient with its ETag', async () => {
    const patient = createTestPatient(server.db, { mobile: '+43 660 1111111', notes: 'old note' });
    assert.equal(patient.version, 1);
    const answer = await patch(patient.id, { mobile: '+43 660 2222222', notes: null });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('etag'), '"2"');
    assert.equal(answer.body.version, 2);
    assert.equal(answer.body.mobile, '+43 660 2222222');
    assert.equal(answer.body.notes, null);
    assert.equal(answer.body.first_name, patient.first_name, 'an absent field stays');
    assert.ok(answer.body.updated_at > patient.updated_at);
    assert.deepEqual(await read(patient.id), answer.body);
    const get = await server.request('GET', `/patients/${patient.id}`);
    assert.equal(get.headers.get('etag'), '"2"');
  });

  it('finds the patient by its new name and phone at once, and no longer by the old ones', async () => {
    const patient = createTestPatient(server.db, { first_name: 'Rosalind', last_name: 'Quarkfeld', mobile: '+43 664 9876543' });
    assert.deepEqual(await found('quarkfeld'), [patient.patient_number]);
    await patch(patient.id, { last_name: 'Zwirbel-Quast', mobile: '0699 5550123' });
    assert.deepEqual(await found('quarkfeld'), []);
    assert.deepEqual(await found('zwirbel rosalind'), [patient.patient_number]);
    assert.deepEqual(await found('5550123'), [patient.patient_number]);
    assert.deepEqual(await found('9876543'), []);
  });

  it('answers a refusal with its status and code: 422 with every failing field, 404, 412, 422 PATIENT_CONTACT_REQUIRED', async () => {
    const patient = createTestPatient(server.db);
    const invalid = await patch(patient.id, { last_name: null, date_of_birth: '1985-13-01' });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.')).sort(), [
      'body.date_of_birth',
      'body.last_name',
    ]);
    const unknown = await patch('00000000-0000-4000-8000-000000000000', { title: 'x' });
    assert.deepEqual([unknown.status, unknown.body.detail.code], [404, 'PATIENT_NOT_FOUND']);
    const stale = await patch(patient.id, { title: 'B' }, { 'if-match': '"9"' });
    assert.deepEqual([stale.status, stale.body.detail.code], [412, 'PRECONDITION_FAILED']);
    const contact = await patch(patient.id, { email: null });
    assert.deepEqual([contact.status, contact.body.detail.code], [422, 'PATIENT_CONTACT_REQUIRED']);
    assert.equal((await read(patient.id)).version, 1);
  });

  it('refuses a body that is no JSON object, and a media type that is no JSON', async () => {
    const patient = createTestPatient(server.db);
    const list = await patch(patient.id, [1]);
    assert.equal(list.status, 422);
    assert.equal(list.body.detail[0].type, 'model_attributes_type');
    const text = await server.request('PATCH', `/patients/${patient.id}`, { rawBody: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 415);
  });

  it('takes application/merge-patch+json', async () => {
    const patient = createTestPatient(server.db);
    const answer = await server.request('PATCH', `/patients/${patient.id}`, {
      rawBody: JSON.stringify({ title: 'Dr.' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.title, 'Dr.');
  });

  it('keeps an inactive patient, found by search and read by id with is_active false', async () => {
    const patient = createTestPatient(server.db, buildPatient({ last_name: 'Inaktivberg' }));
    const answer = await patch(patient.id, { is_active: false });
    assert.equal(answer.body.is_active, false);
    assert.equal(answer.body.version, 2);
    const list = await server.request('GET', '/patients?q=inaktivberg');
    assert.deepEqual(
      list.body.map((p: Patient) => [p.patient_number, p.is_active]),
      [[patient.patient_number, false]],
    );
  });

  it('needs the patients:write scope', async () => {
    const patient = createTestPatient(server.db);
    const readOnly = server.createKey(['patients:read']);
    const answer = await server.request('PATCH', `/patients/${patient.id}`, { body: { title: 'x' }, key: readOnly });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.detail.code, 'FORBIDDEN');
  });
});

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

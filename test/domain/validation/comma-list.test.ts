// comma-list.ts: the comma-separated filters and fields (clinic-api-1.2.md: `?status=`, `?action=`,
// `?types=`; an API key's `scopes`, a person's `roles` in 1.3.0), read and refused alike everywhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidationIssue } from '../../../src/errors.js';
import { commaListIssues, commaListOf, unknownItemsError } from '../../../src/domain/validation/comma-list.js';

const ROLES = ['admin', 'reception', 'practitioner', 'billing', 'scheduler'];
const ROLES_FIELD = { field: 'roles', allowed: ROLES, none: 'a person needs at least one role' };

describe('comma-separated lists', () => {
  it('names nothing (null) when absent, empty or commas and spaces only, so that the filter is left out', () => {
    for (const text of [undefined, '', ',', ' , ,, ']) assert.equal(commaListOf(text), null, JSON.stringify(text));
  });

  it('reads each item trimmed, drops empty ones, and keeps each once in the order first named', () => {
    assert.deepEqual(commaListOf('booked'), ['booked']);
    assert.deepEqual(commaListOf(' booked , arrived,,booked ,'), ['booked', 'arrived']);
    assert.deepEqual(commaListOf('Booked,booked'), ['Booked', 'booked']);
  });

  it('says which items are unknown, each quoted in the order given, and lists the known ones', () => {
    const known = ['patient.created', 'patient.updated', 'invoice.created'];
    const names = { one: 'an event type', all: 'types' };
    assert.equal(unknownItemsError(['patient.created', 'invoice.created'], known, names), undefined);
    assert.equal(unknownItemsError([], known, names), undefined);
    assert.equal(
      unknownItemsError(['patient.deleted', 'patient.created', 'Invoice.created'], known, names),
      '"patient.deleted", "Invoice.created" is not an event type; the types are patient.created, patient.updated, invoice.created',
    );
  });

  it('refuses each unknown item of a body field with literal_error at its place in the list, echoing the item', () => {
    const issues = commaListIssues({ roles: 'reception, root,Admin' }, [], ROLES_FIELD);
    const expected = "'admin', 'reception', 'practitioner', 'billing' or 'scheduler'";
    assert.deepEqual(issues, [
      { type: 'literal_error', loc: ['body', 'roles', 1], msg: `Input should be ${expected}`, input: 'root', ctx: { expected } },
      { type: 'literal_error', loc: ['body', 'roles', 2], msg: `Input should be ${expected}`, input: 'Admin', ctx: { expected } },
    ]);
    assert.deepEqual(commaListIssues({ roles: ' billing ,admin' }, [], ROLES_FIELD), []);
  });

  it('refuses a body field that names none with value_error at the field, in its own words', () => {
    for (const roles of ['', ' , ']) {
      const issues = commaListIssues({ roles }, [], ROLES_FIELD);
      assert.deepEqual(
        issues.map(({ type, loc, msg, ctx }) => ({ type, loc, msg, ctx })),
        [
          {
            type: 'value_error',
            loc: ['body', 'roles'],
            msg: 'Value error, a person needs at least one role',
            ctx: { error: 'a person needs at least one role' },
          },
        ],
        JSON.stringify(roles),
      );
    }
  });

  it('adds nothing when the field is absent, not text, or already refused by its own checks', () => {
    assert.deepEqual(commaListIssues({}, [], ROLES_FIELD), []);
    assert.deepEqual(commaListIssues(null, [], ROLES_FIELD), []);
    assert.deepEqual(commaListIssues({ roles: ['admin'] }, [], ROLES_FIELD), []);
    const tooLong: ValidationIssue = { type: 'string_too_long', loc: ['body', 'roles'], msg: 'String should have at most 200 characters' };
    assert.deepEqual(commaListIssues({ roles: 'root' }, [tooLong], ROLES_FIELD), []);
    // Another field's issue does not hide this one's.
    const otherField: ValidationIssue = { type: 'missing', loc: ['body', 'name'], msg: 'Field required' };
    assert.equal(commaListIssues({ roles: 'root' }, [otherField], ROLES_FIELD).length, 1);
  });
});

// json-body-text.ts: the JSON body of a request (and of `create-patient --file`) read as FastAPI
// reads it: no body is `missing` later, malformed text is 422 json_invalid at ["body", <position>]
// (clinic-public-api.md §7, decisions.md §1, docs/design-choices.md "Fields and bodies").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError, type ValidationIssue } from '../../../src/errors.js';
import { parseJsonBody } from '../../../src/domain/validation/json-body-text.js';

/** The issues parseJsonBody refuses `raw` with; fails the test when it takes it. */
function refusalOf(raw: Buffer | string): ValidationIssue[] {
  try {
    parseJsonBody(Buffer.isBuffer(raw) ? raw : Buffer.from(raw));
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  assert.fail(`took ${JSON.stringify(raw.toString()).slice(0, 60)}`);
}

describe('reading a JSON body', () => {
  it('reads an empty body as no body, and a JSON null as null, so both are reported missing with the other issues', () => {
    assert.equal(parseJsonBody(Buffer.alloc(0)), undefined);
    assert.equal(parseJsonBody(Buffer.from('null')), null);
    assert.deepEqual(parseJsonBody(Buffer.from(' {"first_name": "Zoë", "tags": [1, 2.5, true]} ')), {
      first_name: 'Zoë',
      tags: [1, 2.5, true],
    });
  });

  it("refuses malformed JSON alone, as FastAPI does: json_invalid at its position, input {}, the parser's words in ctx", () => {
    const text = '{"first_name":}';
    let parserMessage = '';
    try {
      JSON.parse(text);
    } catch (error) {
      parserMessage = (error as Error).message;
    }
    assert.deepEqual(refusalOf(text), [
      { type: 'json_invalid', loc: ['body', 14], msg: 'JSON decode error', input: {}, ctx: { error: parserMessage } },
    ]);
  });

  it('refuses a body of spaces as malformed, at its end, not as an absent body', () => {
    assert.deepEqual(
      refusalOf('  \n ').map((found) => [found.type, found.loc]),
      [['json_invalid', ['body', 4]]],
    );
  });

  it('locates the error in characters, not bytes, after accented text', () => {
    // "ü" is one character and two UTF-8 bytes: the closing `}` is at 22 in characters, 23 in bytes.
    const text = '{"last_name":"Müller",}';
    assert.equal(Buffer.byteLength(text), text.length + 1);
    assert.deepEqual(refusalOf(text)[0]?.loc, ['body', text.length - 1]);
  });

  it('refuses bytes that are not UTF-8 at ["body", 0] instead of reading them as U+FFFD', () => {
    const latin1 = Buffer.concat([Buffer.from('{"last_name":"M'), Buffer.from([0xfc]), Buffer.from('ller"}')]);
    assert.deepEqual(refusalOf(latin1), [
      { type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'the body is not valid UTF-8' } },
    ]);
  });

  it('takes a UTF-8 byte order mark before the JSON, as a file saved by Windows Notepad has', () => {
    assert.deepEqual(parseJsonBody(Buffer.from('\ufeff{"first_name":"Ada"}')), { first_name: 'Ada' });
  });

  it('refuses a body past the JSON bounds at the place it passes them, saying which bound', () => {
    const deep = `${'['.repeat(201)}${']'.repeat(201)}`;
    assert.deepEqual(refusalOf(deep), [
      {
        type: 'json_invalid',
        loc: ['body', 200],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: 'nesting is deeper than 200 levels' },
      },
    ]);
    assert.deepEqual(
      parseJsonBody(Buffer.from(`${'['.repeat(200)}${']'.repeat(200)}`)),
      JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`),
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  atPointer,
  checkBodyTemplate,
  fillJsonTemplate,
  isJsonPointer,
  type GatewayValues,
} from '../../../src/domain/reminders/gateway-templates.js';
import { AppError } from '../../../src/errors.js';

/**
 * A generic SMS gateway's request and answer (interface 1.3.0, "Channels and replies"): the body
 * template filled inside its JSON strings, checked when the gateway is set (SET_SMS_GATEWAY,
 * `clinic sms-gateway set --preset generic`: test/domain/reminders/set-sms-gateway.test.ts), and
 * the JSON Pointers read in its answers (the sender: test/domain/reminders/sms-gateway.test.ts).
 */

/** A reminder to Lena whose text holds what could break JSON: quotes, a backslash, a line break, braces. */
const MESSAGE: GatewayValues = {
  to: '+436641234567',
  from: '+43720123456',
  text: 'Hallo "Lena" \\ {to}\nC oder X',
  reference: '0b7e3f52-5d7c-4a43-9d3f-8f1c2a4b6e01',
};

/** The template filled, as the gateway parses it. */
const sent = (template: string) => JSON.parse(fillJsonTemplate(template, MESSAGE)) as unknown;

/** The reason `checkBodyTemplate` refuses `template` for (422 TEMPLATE_INVALID), or undefined when it takes it. */
function refusalOf(template: string): [string, number, string] | undefined {
  try {
    checkBodyTemplate(template);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return [error.code, error.status, error.message];
  }
}

describe('generic gateway templates', () => {
  it('gives the gateway the text exactly as the patient is to read it, quotes, backslash and line break included', () => {
    assert.deepEqual(sent('{"to":"{to}","from":"{from}","text":"{text}","ref":"{reference}"}'), {
      to: '+436641234567',
      from: '+43720123456',
      text: 'Hallo "Lena" \\ {to}\nC oder X',
      ref: MESSAGE.reference,
    });
  });

  it('fills placeholders anywhere inside a string, in nested objects and in names, and leaves others as written', () => {
    assert.deepEqual(sent('{"messages":[{"dest":"tel:{to}","body":"[{from}] {text}","{reference}":"{x} {TO}"}]}'), {
      messages: [{ dest: 'tel:+436641234567', body: '[+43720123456] Hallo "Lena" \\ {to}\nC oder X', [MESSAGE.reference]: '{x} {TO}' }],
    });
  });

  it("reads an escaped quote as inside the string, so that the template's own quotes stay", () => {
    assert.deepEqual(sent('{"text":"Praxis sagt: \\"{text}\\"","path":"C:\\\\{to}"}'), {
      text: 'Praxis sagt: "Hallo "Lena" \\ {to}\nC oder X"',
      path: 'C:\\+436641234567',
    });
  });

  it('leaves a placeholder outside a string as written, which is no JSON: refused when the gateway is set', () => {
    assert.equal(fillJsonTemplate('{"to":{to}}', MESSAGE), '{"to":{to}}');
    assert.deepEqual(refusalOf('{"to":{to}}'), [
      'TEMPLATE_INVALID',
      422,
      "The gateway's body template is not JSON once {to}, {from}, {text} and {reference} are filled in; it must be a JSON object with the placeholders inside its strings.",
    ]);
  });

  it('takes a body template that is a JSON object once filled, and refuses an array, a string or a number', () => {
    assert.equal(refusalOf('{"to":"{to}","text":"{text}"}'), undefined);
    assert.equal(refusalOf('{}'), undefined);
    for (const template of ['["{to}","{text}"]', '"{text}"', '42', 'null'])
      assert.match(refusalOf(template)?.[2] ?? 'taken', /^The gateway's body template is not a JSON object once/, template);
  });

  it('knows a JSON Pointer: empty, or /-separated with ~0 and ~1 as its only escapes', () => {
    for (const pointer of ['', '/', '/id', '/data/0/id', '/a~1b~0c']) assert.equal(isJsonPointer(pointer), true, JSON.stringify(pointer));
    for (const pointer of ['id', 'data/0', '/a~2', '/a~', '#/id']) assert.equal(isJsonPointer(pointer), false, JSON.stringify(pointer));
  });

  it("finds the message's id and the refusal's reason at their pointers, in objects and lists", () => {
    const answer = { data: [{ id: 'SM123', 'a/b': 7, 'm~n': 'tilde' }], error: { message: 'unknown subscriber' } };
    assert.equal(atPointer(answer, '/data/0/id'), 'SM123');
    assert.equal(atPointer(answer, '/data/0/a~1b'), 7);
    assert.equal(atPointer(answer, '/data/0/m~0n'), 'tilde');
    assert.equal(atPointer(answer, '/error/message'), 'unknown subscriber');
    assert.equal(atPointer(answer, ''), answer);
    assert.equal(atPointer({ '': 'empty name' }, '/'), 'empty name');
  });

  it('finds nothing where the answer has nothing: a missing name, an index past the end or written 01, a property of every object', () => {
    const answer = { data: [{ id: 'SM123' }], count: 1 };
    for (const pointer of ['/id', '/data/1/id', '/data/01/id', '/data/-', '/count/0', '/constructor', '/data/0/toString'])
      assert.equal(atPointer(answer, pointer), undefined, pointer);
    assert.equal(atPointer(null, '/id'), undefined);
  });
});

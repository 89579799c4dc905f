import { errors } from '../../errors.js';

/**
 * The generic SMS gateway's request (interface 1.3.0, "Channels and replies"): a JSON body
 * template whose `{to}`, `{from}`, `{text}` and `{reference}` are replaced inside JSON strings by
 * JSON-escaped values, and JSON Pointers (RFC 6901) into the answer.
 */

export const GATEWAY_PLACEHOLDERS = ['to', 'from', 'text', 'reference'] as const;
export type GatewayValues = Readonly<Record<(typeof GATEWAY_PLACEHOLDERS)[number], string>>;

const PLACEHOLDER = /\{(to|from|text|reference)\}/g;

/**
 * `template` with its placeholders filled inside its JSON strings (a placeholder outside a string
 * is left as written, and so leaves no JSON). Walks the text once, minding escapes, so a quote in
 * a value can never end its string.
 */
export function fillJsonTemplate(template: string, values: GatewayValues): string {
  let out = '';
  let inString = false;
  let start = 0;
  const flush = (end: number) => {
    const part = template.slice(start, end);
    out += inString ? part.replace(PLACEHOLDER, (_, name: keyof GatewayValues) => JSON.stringify(values[name]).slice(1, -1)) : part;
    start = end;
  };
  for (let at = 0; at < template.length; at += 1) {
    const char = template[at];
    if (inString && char === '\\') {
      at += 1;
      continue;
    }
    if (char === '"') {
      flush(inString ? at : at + 1);
      inString = !inString;
    }
  }
  flush(template.length);
  return out;
}

/** `template` filled with sample values must be a JSON object, else 422 TEMPLATE_INVALID (`body_template`). */
export function checkBodyTemplate(template: string): void {
  const sample = { to: '+436641234567', from: '+43720123456', text: 'Hallo "Lena" \\ {x}\n', reference: 'r' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(fillJsonTemplate(template, sample));
  } catch {
    throw errors.gatewayTemplateInvalid('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw errors.gatewayTemplateInvalid('not a JSON object');
  }
}

/** Whether `pointer` is a JSON Pointer: empty (the whole document) or `/`-separated tokens. */
export const isJsonPointer = (pointer: string) => pointer === '' || (pointer.startsWith('/') && !/~[^01]|~$/.test(pointer));

/** The value at `pointer` in `document`, or undefined (RFC 6901). */
export function atPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let value = document;
  for (const token of pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))) {
    if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(token)) value = value[Number(token)];
    else if (typeof value === 'object' && value !== null && Object.hasOwn(value, token)) value = (value as Record<string, unknown>)[token];
    else return undefined;
  }
  return value;
}

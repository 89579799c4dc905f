import { jsonErrorPosition } from './json-error-position.js';

/**
 * The most a JSON body may hold beyond its size, checked by one pass over the text before it is
 * parsed: JSON.parse of 4 MiB costs up to 2 s on this machine when the text is deep nesting, and
 * 0.2–0.5 s when it is hundreds of thousands of keys, all on the one thread every client shares.
 * No body the API takes comes near these (a patient is about 100 members with 1,100 values
 * at most), and unknown fields are ignored anyway (decisions.md §3).
 */
export const JSON_BOUNDS = {
  /** Containers inside containers: pydantic's own JSON reader stops at 200 too. */
  depth: 200,
  /** Members of one object. */
  members: 1000,
  /** Values in the whole body: object members, list items and the top-level value. */
  values: 100_000,
} as const;

/** Where a JSON text passes one of JSON_BOUNDS, and which: the `error` of a json_invalid issue. */
export interface JsonBoundsBreach {
  position: number;
  error: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether `code` is JSON whitespace. */
const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * The index just past the string whose opening quote is at `start`, or -1 when it never ends.
 * indexOf jumps over the text natively; a quote is the end unless an odd run of backslashes
 * precedes it.
 */
function stringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/**
 * Where `text` first passes JSON_BOUNDS, or undefined when it stays within them (or when it is
 * malformed before it passes them: JSON.parse then reports it as json_invalid, cheaply, since
 * what comes before the error is within bounds). Counts without building anything: one pass,
 * a few milliseconds for 4 MiB.
 */
export function jsonBoundsBreach(text: string): JsonBoundsBreach | undefined {
  const { depth: maxDepth, members: maxMembers, values: maxValues } = JSON_BOUNDS;
  // Per open container (index = depth): whether it is an object, and its member count.
  const isObject = new Uint8Array(maxDepth + 1);
  const members = new Uint32Array(maxDepth + 1);
  let depth = 0;
  let values = 0;
  // What the next token is: a value (after `[`, `:`, an array's `,`, and at the start) or a key
  // (after `{` and an object's `,`).
  let expectValue = true;
  let expectKey = false;
  let breach: JsonBoundsBreach | undefined;
  for (let i = 0; i < text.length && breach === undefined; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) continue;
    if (expectKey && code === QUOTE) {
      expectKey = false;
      values++;
      if (++members[depth]! > maxMembers) breach = { position: i, error: `an object has more than ${maxMembers} members` };
    } else if (expectValue && code !== 0x5d) {
      expectValue = false;
      // A member was counted at its key.
      if (isObject[depth] !== 1) values++;
    }
    if (values > maxValues) breach = { position: i, error: `the body has more than ${maxValues} values` };
    else if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      i = end - 1;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > maxDepth) breach = { position: i, error: `nesting is deeper than ${maxDepth} levels` };
      else {
        isObject[depth] = code === 0x7b ? 1 : 0;
        members[depth] = 0;
        expectKey = code === 0x7b;
        expectValue = code === 0x5b;
      }
    } else if (code === 0x7d || code === 0x5d) {
      if (depth > 0) depth--;
      expectKey = expectValue = false;
    } else if (code === 0x3a) expectValue = true;
    else if (code === 0x2c) {
      expectKey = isObject[depth] === 1;
      expectValue = !expectKey;
    }
  }
  // Only a text that is JSON up to the breach is refused for it; a malformed one is json_invalid.
  if (breach && jsonErrorPosition(text.slice(0, breach.position)) === breach.position) return breach;
  return undefined;
}

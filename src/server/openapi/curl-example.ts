import { EXAMPLE_IDS, parameterExample } from './examples.js';
import type { OperationSpec } from './operation-spec.js';

/** `text` as one single-quoted shell word. */
const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** `idempotency-key` → `Idempotency-Key`: headers are named as the specification writes them. */
export const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

/** The shell variable an id parameter is written as in an example request (`$PATIENT`), by parameter name. */
const ID_VARIABLES = new Map<string, string>(EXAMPLE_IDS.map(({ parameter, variable }) => [parameter, `$${variable}`]));

/**
 * The value of parameter `name` in `op`'s example request: an id as its shell variable, so that
 * the request names the reader's own record; otherwise its example, or undefined when it has none.
 */
function exampleText(op: OperationSpec, name: string): string | undefined {
  return ID_VARIABLES.get(name) ?? parameterExample(op.operationId, name);
}

/** A query value in a URL: percent-encoded, but a list's commas and a shell variable left as they are read. */
const queryValue = (text: string) => (text.startsWith('$') ? text : encodeURIComponent(text).replaceAll('%2C', ','));

/**
 * `body` as a single-quoted JSON word in which each sample id is the reader's shell variable:
 * the quote is closed around it (`"patient_id":"'$PATIENT'"`), so the shell puts the id in.
 */
function jsonWord(body: unknown): string {
  let json = quoted(JSON.stringify(body));
  for (const { id, variable } of EXAMPLE_IDS) json = json.replaceAll(`"${id}"`, `"'$${variable}'"`);
  return json;
}

/**
 * The example request of an operation as a curl command that works when pasted into a shell in
 * which `API`, `KEY` and the ids it names are set (info.ts says how): from its parameter and body
 * examples, leaving out every optional parameter that has no example (an empty `after=` is a 422)
 * and saving a download to a file rather than the terminal.
 */
export function curlExample(op: OperationSpec): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => exampleText(op, name) ?? name);
  const query = (op.queryFields ?? []).flatMap((spec) => {
    const value = exampleText(op, spec.name);
    return value === undefined ? [] : [`${spec.name}=${queryValue(value)}`];
  });
  const url = `"$API${path}${query.length === 0 ? '' : `?${query.join('&')}`}"`;
  // curl sends POST when given -d or -F, and every POST here has a body; any other method with a body must be named.
  const method = op.method === 'get' || (op.method === 'post' && op.body) ? '' : ` -X ${op.method.toUpperCase()}`;
  const output = op.result.kind !== 'download' ? '' : op.result.made === undefined ? ' -o scan-copy.pdf' : ' -o patient-copy.zip';
  const lines = [`curl -s${method}${output} ${url}`];
  if (op.scope) lines.push('-H "Authorization: Bearer $KEY"');
  // A desk PC's requests (interface 1.3.0): its device token, and for a session the person's token.
  if (op.credentials === 'session') lines.push('-H "Authorization: Bearer $SESSION"');
  if (op.credentials !== undefined) lines.push('-H "Clinic-Device: $DEVICE"');
  for (const spec of op.headerFields ?? []) {
    const value = exampleText(op, spec.name);
    if (value !== undefined) lines.push(`-H ${quoted(`${headerName(spec.name)}: ${value}`)}`);
  }
  if (op.body?.kind === 'json') {
    // A PATCH body is a JSON merge patch (RFC 7396); application/json is taken too.
    const type = op.method === 'patch' ? 'application/merge-patch+json' : 'application/json';
    lines.push(`-H 'Content-Type: ${type}'`, `-d ${jsonWord(op.body.example)}`);
  }
  if (op.body?.kind === 'multipart') {
    for (const [name, value] of Object.entries(op.body.example))
      lines.push(`-F ${quoted(`${name}=${name === op.body.file ? '@scan.pdf' : value}`)}`);
  }
  return lines.join(' \\\n  ');
}

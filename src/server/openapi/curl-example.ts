import { parameterExamples } from './examples.js';
import type { OperationSpec } from './operation-spec.js';

/** `text` as one single-quoted shell word. */
const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** `idempotency-key` → `Idempotency-Key`: headers are named as the specification writes them. */
export const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

/**
 * The example request of an operation as a curl command, from its parameter and body
 * examples: the request every operation's description shows, GETs without a body included.
 */
export function curlExample(op: OperationSpec): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => parameterExamples[name] ?? name);
  const query = (op.queryFields ?? []).map((spec) => `${spec.name}=${encodeURIComponent(parameterExamples[spec.name] ?? '')}`).join('&');
  const url = `"$API${path}${query === '' ? '' : `?${query}`}"`;
  // curl infers POST from -d and -F; every POST here has a body.
  const lines = [`curl -s${op.method === 'get' || op.body ? '' : ` -X ${op.method.toUpperCase()}`} ${url}`];
  if (op.scope) lines.push('-H "Authorization: Bearer $KEY"');
  for (const spec of op.headerFields ?? []) lines.push(`-H ${quoted(`${headerName(spec.name)}: ${parameterExamples[spec.name] ?? ''}`)}`);
  if (op.body?.kind === 'json') lines.push("-H 'Content-Type: application/json'", `-d ${quoted(JSON.stringify(op.body.example))}`);
  if (op.body?.kind === 'multipart') {
    for (const [name, value] of Object.entries(op.body.example))
      lines.push(`-F ${quoted(`${name}=${name === op.body.file ? '@scan.pdf' : value}`)}`);
  }
  return lines.join(' \\\n  ');
}

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { API_PREFIX } from '../../src/server/config.js';
import { OPERATIONS } from '../../src/server/api/api-operations.js';
import { buildApiDescription } from '../../src/server/openapi/description.js';
import { loadPrismOperations, prismViolations } from './prism-check.js';

/**
 * The contract check every HTTP test runs: a response must be one the OpenAPI document
 * describes for its operation and status (body schema, media type, required headers). A path
 * the document does not know must be its NotFound, a known path with another method its
 * MethodNotAllowed. A mismatch throws, failing the test that received the response.
 */

type Json = Record<string, unknown>;

/** What the check needs of a response. */
export interface ReceivedResponse {
  status: number;
  /** fetch's Headers or node:http's header object. */
  headers: Headers | Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body text. */
  text: string;
}

const DOCUMENT_ID = 'urn:clinic:openapi';
export const apiDescription = buildApiDescription(OPERATIONS);
await loadPrismOperations(apiDescription);

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
// OpenAPI's `binary` format describes a file part; it has no JSON value to check.
ajv.addFormat('binary', true);
ajv.addSchema(apiDescription, DOCUMENT_ID);

const compiled = new Map<string, ValidateFunction>();
const escapePointer = (segment: string) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));

/** The validator of the schema at `pointer` (segments) in the document, compiled once. */
function validatorAt(pointer: readonly string[]): ValidateFunction {
  const ref = `${DOCUMENT_ID}#/${pointer.map(escapePointer).join('/')}`;
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  return validate;
}

/** Follows a local `$ref` to its target and the target's location. */
function resolve(value: Json, pointer: string[]): [Json, string[]] {
  const target = value.$ref;
  if (typeof target !== 'string') return [value, pointer];
  const path = target
    .replace(/^#\//, '')
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const found = path.reduce<unknown>((node, key) => (node as Json)[key], apiDescription);
  return [found as Json, path];
}

const templates = Object.keys(apiDescription.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${API_PREFIX}${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** Where the response for `method pathname status` is described, as a document location. */
function describedResponse(method: string, pathname: string, status: number): string[] {
  const where = `${method} ${pathname} → ${status}`;
  // node:http refuses oversized headers before any route is matched.
  if (status === 431) return ['components', 'responses', 'HeadersTooLarge'];
  const match = templates.find(({ pattern }) => pattern.test(pathname));
  if (!match) {
    if (status !== 404) throw new Error(`contract: ${where}: a path not in the OpenAPI document must be a 404`);
    return ['components', 'responses', 'NotFound'];
  }
  const pathItem = apiDescription.paths[match.template]!;
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  if (!(verb in pathItem)) {
    if (status !== 405)
      throw new Error(`contract: ${where}: a method the OpenAPI document does not list for ${match.template} must be a 405`);
    return ['components', 'responses', 'MethodNotAllowed'];
  }
  const responses = pathItem[verb]!.responses as Json;
  if (!(String(status) in responses)) {
    throw new Error(
      `contract: ${method} ${match.template} answered ${status}, a status the OpenAPI document does not list (${Object.keys(responses).join(', ')})`,
    );
  }
  return ['paths', match.template, verb, 'responses', String(status)];
}

function headerOf(headers: ReceivedResponse['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Throws unless `response` is what the document describes for `method` on `url`, by this check and by Prism's. */
export function assertMatchesContract(method: string, url: string, response: ReceivedResponse): void {
  checkAgainstDocument(method, url, response);
  const headers: Record<string, string> = {};
  if (response.headers instanceof Headers) response.headers.forEach((value, name) => (headers[name] = value));
  else
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const violations = prismViolations(method, url, { status: response.status, headers, text: response.text });
  if (violations.length > 0) throw new Error(`contract: Prism reports:\n  ${violations.join('\n  ')}`);
}

function checkAgainstDocument(method: string, url: string, response: ReceivedResponse): void {
  const pathname = new URL(url, 'http://localhost').pathname;
  const where = `${method} ${pathname} → ${response.status}`;
  const [described, pointer] = resolveAt(describedResponse(method, pathname, response.status));
  for (const [name, header] of Object.entries((described.headers ?? {}) as Json)) {
    const [definition] = resolve(header as Json, []);
    if (definition.required === true && headerOf(response.headers, name) === undefined) {
      throw new Error(`contract: ${where}: the required header ${name} is missing`);
    }
  }
  const content = described.content as Json | undefined;
  if (content === undefined) {
    if (response.text !== '') throw new Error(`contract: ${where}: the document describes no body, but one was sent`);
    return;
  }
  const mediaType = (headerOf(response.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!(mediaType in content)) {
    throw new Error(`contract: ${where}: media type "${mediaType}" is not one of ${Object.keys(content).join(', ')}`);
  }
  const body = mediaType === 'application/json' ? parseJson(response.text, where) : response.text;
  const validate = validatorAt([...pointer, 'content', mediaType, 'schema']);
  if (!validate(body)) {
    const problems = (validate.errors ?? [])
      .slice(0, 10)
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    throw new Error(
      `contract: ${where}: the body does not match the OpenAPI document:\n  ${problems.join('\n  ')}\n  body: ${response.text.slice(0, 400)}`,
    );
  }
}

function resolveAt(pointer: string[]): [Json, string[]] {
  const node = pointer.reduce<unknown>((value, key) => (value as Json)[key], apiDescription);
  return resolve(node as Json, pointer);
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`contract: ${where}: the body is not JSON: ${text.slice(0, 200)}`);
  }
}

/** fetch, with the answer checked against the OpenAPI document like the test client's (for tests that call a server they started themselves). */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.text();
  assertMatchesContract(init.method ?? 'GET', url, { status: response.status, headers: response.headers, text });
  return new Response(text === '' ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Throws unless `value` matches the document's schema `name`: the CLI's --json prints the API's own shapes (decisions.md §8). */
export function assertMatchesSchema(name: string, value: unknown): void {
  if (!(name in (apiDescription.components as { schemas: Json }).schemas)) throw new Error(`contract: no schema ${name}`);
  const validate = validatorAt(['components', 'schemas', name]);
  if (!validate(value)) {
    const problems = (validate.errors ?? [])
      .slice(0, 10)
      .map((e) => `${e.instancePath || '(value)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    throw new Error(`contract: the value does not match the schema ${name}:\n  ${problems.join('\n  ')}`);
  }
}

import { createRequire } from 'node:module';
import { API_PREFIX } from '../../src/server/config.js';

/**
 * Stoplight Prism's own validators (the ones `prism proxy` runs on what passes through it), run
 * on every answer the HTTP suites receive: test/helpers/contract.ts calls this beside its own
 * check, so Prism sees the suites' whole traffic without a proxy in between (see docs/development.md,
 * "Development"). test/server/prism-proxy.test.ts runs the real proxy too.
 */

// Prism's packages are CommonJS with no exports map; their router and validator are read by path.
const require = createRequire(import.meta.url);
type Either<L, R> = { _tag: 'Left'; left: L } | { _tag: 'Right'; right: R };
interface Diagnostic {
  message: string;
  severity: number;
  path?: (string | number)[];
}
const { getHttpOperationsFromSpec } = require('@stoplight/prism-http') as {
  getHttpOperationsFromSpec: (spec: object) => Promise<object[]>;
};
const route = (require('@stoplight/prism-http/dist/router/index.js') as { default: (args: object) => Either<Error, object> }).default;
const { validateOutput } = require('@stoplight/prism-http/dist/validator/index.js') as {
  validateOutput: (args: object) => Either<Diagnostic[], unknown>;
};

let operations: object[] | undefined;

/** Reads the interface description the way Prism reads it; call once before checking. */
export async function loadPrismOperations(description: object): Promise<void> {
  operations = await getHttpOperationsFromSpec(JSON.parse(JSON.stringify(description)) as object);
}

/**
 * What Prism finds wrong in an answer (error and warning diagnostics), or nothing. Paths and
 * methods outside the document are the contract check's own business (404, 405).
 */
export function prismViolations(
  method: string,
  url: string,
  response: { status: number; headers: Record<string, string>; text: string },
): string[] {
  if (operations === undefined) throw new Error('prism-check: loadPrismOperations first');
  const parsed = new URL(url, 'http://localhost');
  if (!parsed.pathname.startsWith(API_PREFIX)) return [];
  const path = parsed.pathname.slice(API_PREFIX.length) || '/';
  const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  const routed = route({ resources: operations, input: { method: verb, url: { path, query: {} }, headers: {} } });
  if (routed._tag === 'Left') return [];
  const json = (response.headers['content-type'] ?? '').startsWith('application/json');
  let body: unknown = response.text;
  if (json && response.text !== '') body = JSON.parse(response.text);
  if (method.toLowerCase() === 'head' || response.text === '') body = undefined;
  const checked = validateOutput({ resource: routed.right, element: { statusCode: response.status, headers: response.headers, body } });
  if (checked._tag === 'Right') return [];
  return checked.left
    .filter((diagnostic) => diagnostic.severity <= 1)
    .map((diagnostic) => `${method} ${parsed.pathname} → ${response.status}: ${(diagnostic.path ?? []).join('.')} ${diagnostic.message}`);
}

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_PREFIX } from '../../src/server/config.js';

/**
 * Stoplight Prism's own validators (the ones `prism proxy` runs on what passes through it), run
 * on every answer the HTTP suites receive: test/helpers/contract.ts calls this beside its own
 * check, so Prism sees the suites' whole traffic without a proxy in between (see docs/development.md,
 * "Development"). test/server/prism-proxy.test.ts runs the real proxy too.
 */

// Prism's packages are CommonJS with no exports map; their reader of the document, router and
// validator are read by path. The package's index would also load its mocker and faker (2,000
// modules, 0.4 s in each test process that checks answers).
const require = createRequire(import.meta.url);
type Either<L, R> = { _tag: 'Left'; left: L } | { _tag: 'Right'; right: R };
interface Diagnostic {
  message: string;
  severity: number;
  path?: (string | number)[];
}
const route = (require('@stoplight/prism-http/dist/router/index.js') as { default: (args: object) => Either<Error, object> }).default;
const { validateOutput } = require('@stoplight/prism-http/dist/validator/index.js') as {
  validateOutput: (args: object) => Either<Diagnostic[], unknown>;
};

let operations: object[] | undefined;

/**
 * Where Prism's reading of a description is kept, by the description's and Prism's digest: the
 * reading takes 0.2 s and its reader 0.1 s to load, in every test process that checks answers,
 * and the same description is read a few hundred times a run.
 */
const CACHE = fileURLToPath(new URL('../../build/test-cache/', import.meta.url));

/**
 * Reads the interface description the way Prism reads it; call once before checking. The
 * operations are plain JSON (Prism removes cycles), and are always used as JSON gives them back,
 * so that a process that read the cache checks exactly as the one that wrote it.
 */
export async function loadPrismOperations(description: object): Promise<void> {
  const text = JSON.stringify(description);
  const prismVersion = (require('@stoplight/prism-http/package.json') as { version: string }).version;
  const digest = createHash('sha256').update(prismVersion).update('\0').update(text).digest('hex').slice(0, 32);
  const file = join(CACHE, `prism-operations-${digest}.json`);
  try {
    operations = JSON.parse(readFileSync(file, 'utf8')) as object[];
    return;
  } catch {
    // Not read yet by this checkout: read it below.
  }
  const { getHttpOperationsFromSpec } = require('@stoplight/prism-http/dist/utils/operations.js') as {
    getHttpOperationsFromSpec: (spec: object) => Promise<object[]>;
  };
  const json = JSON.stringify(await getHttpOperationsFromSpec(JSON.parse(text) as object));
  operations = JSON.parse(json) as object[];
  // Written whole under another name, then renamed: processes reading it at once never see half.
  mkdirSync(CACHE, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, json);
  renameSync(partial, file);
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

import type { RouterContext } from '@koa/router';
import type { Db } from '../db/open-database.js';
import type { ServerConfig } from './config.js';
import type { OperationSpec } from './openapi/operation-spec.js';
import type { ClinicState } from './state.js';

/** What an operation's handler may use; given once, when the app is created. */
export interface OperationDeps {
  db: Db;
  config: ServerConfig;
  /** Every operation the app serves (the interface description is built from them). */
  operations: readonly Operation[];
}

/**
 * Answers one request. For a `model` result its return value is the response body, sent with
 * the result's status; a `static` result sends itself. Runs after the key, the module switch and
 * the body were checked (mount-operations.ts).
 */
export type OperationHandler = (ctx: RouterContext<ClinicState>) => unknown;

/**
 * One operation of the API, declared once: method, path, scope, module, inputs, result and
 * refusals (OperationSpec, from which the interface description is built), and its handler. The
 * Koa route is mounted from the same object, so the served route and its description cannot
 * disagree.
 */
export interface Operation extends OperationSpec {
  /** Makes the handler, once per app: anything a request need not repeat happens here. */
  handler(deps: OperationDeps): OperationHandler;
}

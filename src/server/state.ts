import type { ParameterizedContext } from 'koa';
import type { ApiPrincipal } from '../domain/api-keys.js';

/** What middleware leaves for the handlers on `ctx.state`. */
export interface ClinicState {
  requestId: string;
  /** Set by `authorize` on endpoints that need a key. */
  principal?: ApiPrincipal;
  /** The parsed JSON body, set by `jsonBody`. */
  body?: unknown;
}

export type ClinicContext = ParameterizedContext<ClinicState>;

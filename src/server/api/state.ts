import type { ParameterizedContext } from 'koa';
import type { ApiPrincipal } from '../../domain/api-keys.js';
import type { DocumentUpload } from '../../domain/documents/upload-document.js';

/** What middleware leaves for the handlers on `ctx.state`. */
export interface ClinicState {
  requestId: string;
  /** The `Origin` of a request from an `--allowed-origin` (its answer carries CORS headers), set by guardHostAndOrigin. */
  crossOrigin?: string;
  /** Set by `authorize` on endpoints that need a key (and by GET /health for a valid key sent to it). */
  principal?: ApiPrincipal;
  /** A key was sent that is not valid, on an endpoint that answers without one (GET /health): it counts as a failed key. */
  keyRefused?: boolean;
  /** The parsed JSON body, set by `jsonBody`. */
  body?: unknown;
  /** A document upload whose form has been read, set by `receiveDocumentUpload`. */
  upload?: DocumentUpload;
  /** The text fields of that form. */
  form?: Record<string, unknown>;
}

export type ClinicContext = ParameterizedContext<ClinicState>;

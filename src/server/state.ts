import type { ParameterizedContext } from 'koa';
import type { ApiPrincipal } from '../domain/api-keys.js';
import type { DocumentUpload } from '../domain/documents/upload-document.js';

/** What middleware leaves for the handlers on `ctx.state`. */
export interface ClinicState {
  requestId: string;
  /** The `Origin` of a request from an `--allowed-origin` (its answer carries CORS headers), set by guardHostAndOrigin. */
  crossOrigin?: string;
  /** Set by `authorize` on endpoints that need a key. */
  principal?: ApiPrincipal;
  /** The parsed JSON body, set by `jsonBody`. */
  body?: unknown;
  /** A document upload whose form has been read, set by `receiveDocumentUpload`. */
  upload?: DocumentUpload;
  /** The text fields of that form. */
  form?: Record<string, unknown>;
}

export type ClinicContext = ParameterizedContext<ClinicState>;

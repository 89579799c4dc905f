import type { DeskCommandFile } from '../../domain/desk/desk-command-files.js';
import type { ParameterizedContext } from 'koa';
import type { ApiPrincipal } from '../../domain/api-keys.js';
import type { DocumentUpload } from '../../domain/documents/upload-document.js';
import type { DeviceRow } from '../../db/devices.js';
import type { OpenSession } from '../../domain/people/sessions.js';

/** A session in use over HTTP: always through the desk PC it was made on. */
export type DeskSession = OpenSession & { device: DeviceRow };

/** What middleware leaves for the handlers on `ctx.state`. */
export interface ClinicState {
  requestId: string;
  /** The `Origin` of a request from an `--allowed-origin` (its answer carries CORS headers), set by guardHostAndOrigin. */
  crossOrigin?: string;
  /** Set by `authorize` on endpoints that need a key (and by GET /health for a valid key sent to it). */
  principal?: ApiPrincipal;
  /** Set by `authorize` for a person's session from a desk PC (interface 1.3.0): its person and device. */
  session?: DeskSession;
  /** Set by `authorize` on an operation a desk PC calls before its person logs in (POST /sessions). */
  device?: DeviceRow;
  /** A key was sent that is not valid, on an endpoint that answers without one (GET /health): it counts as a failed key. */
  keyRefused?: boolean;
  /** The parsed JSON body, set by `jsonBody`. */
  body?: unknown;
  /** A document upload whose form has been read, set by `receiveDocumentUpload`. */
  upload?: DocumentUpload;
  /** The text fields of that form. */
  form?: Record<string, unknown>;
  /** The files a desk PC sent with its command (POST /desk/commands as a form), set by `receiveDeskCommand`. */
  deskFiles?: DeskCommandFile[];
}

export type ClinicContext = ParameterizedContext<ClinicState>;

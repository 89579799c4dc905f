import type { Credentials } from '../middleware/authorize.js';
import type { Scope } from '../../domain/api-keys.js';
import type { AppError } from '../../errors.js';
import type { ModuleName } from '../../domain/settings.js';
import type { FieldSpec } from '../../fields/field-spec.js';
import type { JsonSchema } from './field-schemas.js';
import type { ModelName } from './models.js';
import type { Role } from '../../domain/people/roles.js';

/** A JSON response made of one model, or a list of it. */
export interface ModelResult {
  kind: 'model';
  status: 200 | 201;
  model: ModelName;
  list?: boolean;
  /**
   * A list served a page at a time (clinic-api-1.1.md, "Pagination"): the handler returns a
   * Page, whose items are the body and whose next cursor becomes the Link header.
   */
  paged?: boolean;
  description: string;
  example: unknown;
  /** Response headers besides X-Request-Id. */
  headers?: Readonly<Record<string, { description: string; schema: JsonSchema }>>;
  /** The same model answered 503 when `when` says so of the body (GET /health). */
  unavailable?: { description: string; example: unknown; when(body: unknown): boolean };
}

/** An answer without a body (DELETE /sessions/current): 204. The handler sets the status. */
export interface EmptyResult {
  kind: 'empty';
  description: string;
}

/** A file the program serves as it is (the interface description itself, the docs page): 200, or 304 to a matching If-None-Match. */
interface StaticResult {
  kind: 'static';
  description: string;
  media: Readonly<Record<string, JsonSchema>>;
  example: string | object;
}

/** A stored file, streamed: 200 with its bytes, or 304 to an If-None-Match naming its ETag. The handler sends it. */
export interface DownloadResult {
  kind: 'download';
  description: string;
  /**
   * A file made as it is sent, of this type (the patient's copy, application/zip): no ETag, no
   * Content-Length and no 304. Without it, a stored file of the type stored with it.
   */
  made?: { mediaType: string; example: string };
}

export type RequestBody =
  | {
      kind: 'json';
      model: ModelName;
      example: unknown;
      /**
       * The form parts (by name) that may come with the JSON instead: then the body is a
       * multipart/form-data form, its part `command` the JSON and these its files (POST /desk/commands).
       */
      files?: readonly string[];
    }
  /** A multipart form: the text fields of `fields` and the binary part `file`. */
  | { kind: 'multipart'; fields: readonly FieldSpec[]; file: string; example: Record<string, string> };

/**
 * What the interface description needs to know of one operation: its paths, security,
 * parameters and responses are derived from this (document.ts). It is part of the operation's
 * one declaration (src/server/api/operation.ts), from which the route is mounted too.
 */
export interface OperationSpec {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path template below the API prefix. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The scope a key needs (→ bearer security, 401, 403 FORBIDDEN, 503); none for a public operation. */
  scope?: Scope;
  /**
   * Who may call it besides a key of `scope` (authorize.ts, Credentials): by default a key or a
   * person's session; `session` a session only, `device` a desk PC's Clinic-Device alone.
   */
  credentials?: Credentials;
  /** False for an operation that looks at a session without using it (GET /sessions/current): its idle end stays. */
  touchesSession?: false;
  /** The clinic module that must be on (→ 403 MODULE_DISABLED). */
  module?: ModuleName;
  /** Who may do it when a person asks (its use case's row of the role matrix, ROLE_ROWS): `x-clinic-roles`. */
  roles: readonly Role[];
  /** A read whose answer records audit events, stored before it is sent (→ 507 STORAGE_FAILED when they cannot be). */
  recordsRead?: boolean;
  pathFields?: readonly FieldSpec[];
  queryFields?: readonly FieldSpec[];
  headerFields?: readonly FieldSpec[];
  body?: RequestBody;
  /** Coded refusals after the schema: unknown ids in the path (404) and behavioural rules (422). */
  refusals?: readonly AppError[];
  result: ModelResult | StaticResult | DownloadResult | EmptyResult;
}

/** The tags operations are grouped under, in the order the docs page shows them. */
export const TAGS = [
  { name: 'patients', description: 'Patient records' },
  { name: 'appointments', description: 'Booking appointments' },
  { name: 'reminders', description: 'Appointment reminders (1.3.0): planned with each booking, sent by clinic serve' },
  { name: 'documents', description: 'Patient documents' },
  { name: 'billing', description: 'Invoices (billing module) and payments (payments module)' },
  { name: 'lookups', description: 'Lookup lists' },
  { name: 'audit', description: 'The audit trail: who saw or changed whose data' },
  { name: 'events', description: 'The change feed: every committed change, in order, for integrations to follow' },
  { name: 'desk', description: 'People at desk PCs (1.3.0): pairing a PC, logging in, running desk commands' },
  { name: 'interface', description: 'This description and its docs page' },
] as const;

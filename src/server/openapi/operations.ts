import type { Scope } from '../../domain/api-keys.js';
import { errors, type AppError } from '../../domain/errors.js';
import type { ModuleName } from '../../domain/settings.js';
import { INVOICE_QUERY_FIELDS, PAYMENT_HEADER_FIELDS, PAYMENT_PATH_FIELDS } from '../../fields/billing-fields.js';
import { DOCUMENT_FORM_FIELDS, DOCUMENT_PATH_FIELDS } from '../../fields/document-fields.js';
import { field, type FieldSpec } from '../../fields/field-spec.js';
import * as examples from './examples.js';
import type { JsonSchema } from './field-schemas.js';
import type { ModelName } from './models.js';

/** A JSON response made of one model, or a list of it. */
interface ModelResult {
  kind: 'model';
  status: 200 | 201;
  model: ModelName;
  list?: boolean;
  description: string;
  example: unknown;
  /** Response headers besides X-Request-Id. */
  headers?: Readonly<Record<string, { description: string; schema: JsonSchema }>>;
}

/** A file the program serves as it is (the document itself, the docs page): 200, or 304 to a matching If-None-Match. */
interface StaticResult {
  kind: 'static';
  description: string;
  media: Readonly<Record<string, JsonSchema>>;
  example: string | object;
}

export type RequestBody =
  | { kind: 'json'; model: ModelName; example: unknown }
  /** A multipart form: the text fields of `fields` and the binary part `file`. */
  | { kind: 'multipart'; fields: readonly FieldSpec[]; file: string; example: Record<string, string> };

/**
 * One operation of the API, described once: the document's paths, security, parameters and
 * responses are derived from this (document.ts), and test/server/openapi.test.ts checks that
 * the Koa routers serve exactly these.
 */
export interface OperationSpec {
  method: 'get' | 'post';
  /** OpenAPI path template below the API prefix. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The scope a key needs (→ bearer security, 401, 403 FORBIDDEN, 503); none for a public operation. */
  scope?: Scope;
  /** The clinic module that must be on (→ 403 MODULE_DISABLED). */
  module?: ModuleName;
  pathFields?: readonly FieldSpec[];
  queryFields?: readonly FieldSpec[];
  headerFields?: readonly FieldSpec[];
  body?: RequestBody;
  /** Coded refusals after the schema: unknown ids in the path (404) and behavioural rules (422). */
  refusals?: readonly AppError[];
  result: ModelResult | StaticResult;
}

/** The tags operations are grouped under, in the order the docs page shows them. */
export const TAGS = [
  { name: 'patients', description: 'Patient records' },
  { name: 'appointments', description: 'Booking appointments' },
  { name: 'documents', description: 'Patient documents' },
  { name: 'billing', description: 'Invoices (billing module) and payments (payments module)' },
  { name: 'lookups', description: 'Lookup lists' },
  { name: 'interface', description: 'This description and its docs page' },
] as const;

/** The path parameter of a docs page asset; an unknown name is a 404. */
const ASSET_PATH_FIELDS = [field.string('asset', { required: true, description: 'A file of the docs page' })];

/** Every operation the server answers, in the order of the specification. */
export const OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/document-types',
    operationId: 'listDocumentTypes',
    summary: 'List document types',
    description: 'Public: no key is needed.',
    tag: 'lookups',
    result: { kind: 'model', status: 200, model: 'DocumentType', list: true, description: 'Every document type', example: examples.documentTypesExample },
  },
  {
    method: 'get',
    path: '/payment-methods',
    operationId: 'listPaymentMethods',
    summary: 'List payment methods',
    description: 'Public: no key is needed.',
    tag: 'lookups',
    result: { kind: 'model', status: 200, model: 'PaymentMethod', list: true, description: 'Every payment method', example: examples.paymentMethodsExample },
  },
  {
    method: 'get',
    path: '/services',
    operationId: 'listServices',
    summary: 'List services',
    description: 'A service id is used as `service_id` when booking an appointment.',
    tag: 'lookups',
    scope: 'lookups:read',
    result: { kind: 'model', status: 200, model: 'Service', list: true, description: 'Every service, in the order added', example: examples.servicesExample },
  },
  {
    method: 'get',
    path: '/doctors',
    operationId: 'listDoctors',
    summary: 'List doctors',
    description: 'A doctor id is used as `resource_id` when booking an appointment.',
    tag: 'lookups',
    scope: 'lookups:read',
    result: { kind: 'model', status: 200, model: 'Doctor', list: true, description: 'Every doctor, in the order added', example: examples.doctorsExample },
  },
  {
    method: 'get',
    path: '/invoices',
    operationId: 'listInvoices',
    summary: 'List invoices with their outstanding balance',
    description: 'Newest first. An unknown `patient_id` matches nothing. Requires the billing module.',
    tag: 'billing',
    scope: 'invoices:read',
    module: 'billing',
    queryFields: INVOICE_QUERY_FIELDS,
    result: { kind: 'model', status: 200, model: 'Invoice', list: true, description: 'The matching invoices', example: examples.invoiceListExample },
  },
  {
    method: 'post',
    path: '/invoices/{invoice_id}/payments',
    operationId: 'recordPayment',
    summary: 'Record a payment against an invoice',
    description:
      'Final: a recorded payment is never edited or removed. Partial payments are allowed up to the remaining balance; ' +
      'when the balance reaches zero the invoice becomes `paid` and the patient is notified. Repeating an ' +
      '`Idempotency-Key` with the same request returns the original result (200, `Idempotent-Replayed: true`) and ' +
      'records nothing; with a different request it is refused. Requires the payments module.',
    tag: 'billing',
    scope: 'payments:write',
    module: 'payments',
    pathFields: PAYMENT_PATH_FIELDS,
    headerFields: PAYMENT_HEADER_FIELDS,
    body: { kind: 'json', model: 'PaymentRequest', example: examples.paymentRequestExample },
    refusals: [errors.invoiceNotFound(), errors.paymentExceedsBalance(), errors.idempotencyKeyReused()],
    result: {
      kind: 'model',
      status: 200,
      model: 'PaymentResult',
      description: 'The payment was recorded, or an earlier one with this Idempotency-Key is replayed (200, not 201)',
      example: examples.paymentResultExample,
      headers: {
        'Idempotent-Replayed': {
          description: 'Present, and `true`, when this answer replays an earlier payment with the same Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    },
  },
  {
    method: 'post',
    path: '/patients',
    operationId: 'createPatient',
    summary: 'Create a patient',
    description: 'The returned `id` is used to book appointments and upload documents.',
    tag: 'patients',
    scope: 'patients:write',
    body: { kind: 'json', model: 'PatientInput', example: examples.patientInputExample },
    refusals: [errors.patientContactRequired()],
    result: { kind: 'model', status: 201, model: 'Patient', description: 'The patient was created', example: examples.patientExample },
  },
  {
    method: 'post',
    path: '/appointments',
    operationId: 'bookAppointment',
    summary: 'Book an appointment for an existing patient',
    description: 'A date-time without an offset is clinic local time; responses give UTC. `end_at` must be after `start_at`.',
    tag: 'appointments',
    scope: 'appointments:write',
    body: { kind: 'json', model: 'AppointmentInput', example: examples.appointmentInputExample },
    refusals: [errors.patientNotFound(422), errors.doctorNotFound(), errors.serviceNotFound()],
    result: { kind: 'model', status: 201, model: 'Appointment', description: 'The appointment was booked', example: examples.appointmentExample },
  },
  {
    method: 'post',
    path: '/patients/{patient_id}/documents',
    operationId: 'uploadDocument',
    summary: 'Upload a document for a patient',
    description: 'The file is streamed to disk, never held in memory; an empty `type` or `title` counts as absent.',
    tag: 'documents',
    scope: 'documents:write',
    pathFields: DOCUMENT_PATH_FIELDS,
    body: { kind: 'multipart', fields: DOCUMENT_FORM_FIELDS, file: 'file', example: examples.documentFormExample },
    refusals: [errors.patientNotFound(404), errors.documentTypeInvalid(examples.documentTypesExample.map((t) => t.key)), errors.documentEmpty()],
    result: { kind: 'model', status: 201, model: 'Document', description: 'The document was stored', example: examples.documentExample },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This interface description (OpenAPI 3.1)',
    tag: 'interface',
    result: {
      kind: 'static',
      description: 'The OpenAPI document',
      media: {
        'application/json': {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
        },
      },
      example: { openapi: '3.1.0', info: { title: 'Clinic public API', version: '1.0.0' }, paths: {} },
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getDocsPage',
    summary: 'The interactive reference rendered from this description',
    description: 'Works offline: its scripts and styles are served by the program itself.',
    tag: 'interface',
    result: { kind: 'static', description: 'The docs page', media: { 'text/html': { type: 'string' } }, example: '<!doctype html>…' },
  },
  {
    method: 'get',
    path: '/docs/{asset}',
    operationId: 'getDocsAsset',
    summary: 'A script, style sheet or licence of the docs page',
    tag: 'interface',
    pathFields: ASSET_PATH_FIELDS,
    refusals: [errors.notFound()],
    result: {
      kind: 'static',
      description: 'The file',
      media: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' }, 'text/plain': { type: 'string' } },
      example: '.swagger-ui{…}',
    },
  },
];

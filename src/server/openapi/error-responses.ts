import { ECHO_BOUNDS, MAX_ISSUES } from '../../domain/validation/validate.js';
import { refusalBody, type AppError, type ValidationIssue } from '../../errors.js';
import { allErrorCodes } from './error-codes.js';
import { CONTACT_RULES } from '../../domain/settings.js';
import type { JsonSchema } from './field-schemas.js';

/**
 * The two error bodies of decisions.md §1 as schemas and responses: the pydantic-style
 * validation body (HTTPValidationError) and the coded error ({detail: {code, message}}).
 */

export const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The headers error responses may carry, by the name AppError.headers uses. */
const ERROR_HEADERS: Readonly<Record<string, { description: string; schema: JsonSchema }>> = {
  'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string', enum: ['Bearer'] } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string', pattern: '^[0-9]+$' } },
  Allow: { description: 'The methods this path allows', schema: { type: 'string' } },
};

/** The schemas of both error bodies, for `components.schemas`. */
export function errorSchemas(): Record<string, JsonSchema> {
  return {
    ValidationError: {
      type: 'object',
      description: 'One failing value, as pydantic v2 reports it',
      required: ['type', 'loc', 'msg'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', description: 'A pydantic v2 error type, e.g. missing, string_too_long, uuid_parsing' },
        loc: {
          type: 'array',
          description: 'Where: first body, query, path or header, then the field names and list positions',
          minItems: 1,
          items: { type: ['string', 'integer'] },
        },
        msg: { type: 'string', description: 'For people' },
        input: {
          description:
            'The value that failed (for a missing field, the object it is missing from). Past a bound it is cut, deterministically: ' +
            `a string after ${ECHO_BOUNDS.stringChars} characters (ending \`…+N more characters\`), an object after ` +
            `${ECHO_BOUNDS.entries} members (a last member \`"…": "+N more keys"\`), a list after ${ECHO_BOUNDS.entries} items ` +
            `(a last item \`…+N more items\`), and the whole value at ${ECHO_BOUNDS.bytes / 1024} KiB of JSON`,
        },
        ctx: { type: 'object', additionalProperties: true, description: 'The limit or pattern that was not met' },
      },
    },
    HTTPValidationError: {
      type: 'object',
      description: `Every failing value of the request at once (at most ${MAX_ISSUES}, and no more than fit in ${ECHO_BOUNDS.detailBytes / 1024} KiB)`,
      required: ['detail'],
      additionalProperties: false,
      properties: { detail: { type: 'array', minItems: 1, maxItems: MAX_ISSUES, items: ref('schemas', 'ValidationError') } },
    },
    ErrorCode: { type: 'string', description: 'Every code of a coded error', enum: allErrorCodes() },
    CodedError: codedSchema(ref('schemas', 'ErrorCode')),
  };
}

/**
 * The coded error body whose code is `code`: the ErrorCode reference, or (for one response) the
 * codes it can carry, so a response with another code fails the contract.
 */
function codedSchema(code: JsonSchema): JsonSchema {
  return {
    type: 'object',
    description: 'A refusal with a stable code; a client tells it from a validation error by `detail` being an object',
    required: ['detail'],
    additionalProperties: false,
    properties: {
      detail: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code,
          message: { type: 'string', description: 'One sentence for a person' },
          conflicts: {
            type: 'array',
            items: { type: 'string' },
            description: 'APPOINTMENT_OVERLAP only: the numbers of the appointments in the way, by start',
          },
          restart_after: {
            type: 'integer',
            minimum: 0,
            description:
              'FEED_POSITION_LOST only: where a consumer starts again (`after`): the last event before the positions a restore left behind',
          },
          id: {
            type: 'string',
            format: 'uuid',
            description: 'DOCTOR_RETIRED and SERVICE_RETIRED only (1.3.0): the retired doctor or service',
          },
          balance: {
            type: 'number',
            minimum: 0,
            description: "CREDIT_EXCEEDS_BALANCE only (1.3.0): what the invoice still asks, in the invoice's currency",
          },
          rule: {
            type: 'string',
            enum: CONTACT_RULES.filter((rule) => rule !== 'none'),
            description: "PATIENT_CONTACT_REQUIRED only: the clinic's contact rule in force (`clinic settings set-contact-rule`)",
          },
          reason: {
            type: 'string',
            description:
              'LOGIN_FAILED (`unknown_person`, `wrong_pin`, `wrong_code`), SESSION_ENDED (`idle`, `expired`, `logged_out`, `replaced`, `pin_reset`, `device_revoked`), PIN_INVALID (`length`, `not_digits`, `one_digit`, `sequence`, `repeated`) (1.3.0)',
          },
          attempts_left: {
            type: 'integer',
            minimum: 0,
            description: 'LOGIN_FAILED with `wrong_pin` only (1.3.0): wrong PINs left before the lock',
          },
          locked_until: { type: 'string', format: 'date-time', description: 'PERSON_LOCKED only (1.3.0): when the lock ends, UTC' },
          allowed_roles: { type: 'array', items: { type: 'string' }, description: 'ROLE_FORBIDDEN only (1.3.0): the roles that may' },
          patient_number: { type: 'string', description: "PATIENT_RESTRICTED only (1.3.0): the erased patient's number" },
          roles: { type: 'array', items: { type: 'string' }, description: "ROLE_FORBIDDEN only (1.3.0): the person's roles" },
          desk_version: { type: 'string', description: "VERSION_UNSUPPORTED only (1.3.0): the desk's version as sent" },
          server_version: { type: 'string', description: "VERSION_UNSUPPORTED only (1.3.0): the server's version" },
          accepted: {
            type: 'array',
            items: { type: 'string' },
            description: 'VERSION_UNSUPPORTED only (1.3.0): the MAJOR.MINOR a desk may run',
          },
        },
      },
    },
  };
}

const codesOf = (refusals: readonly AppError[]): JsonSchema => ({
  type: 'string',
  enum: [...new Set(refusals.map((error) => error.code))],
});

const codedBody = (error: AppError) => refusalBody(error);

/** The response of one status whose body is one of `refusals`, with an example of each. */
export function codedResponse(refusals: readonly AppError[], description?: string): JsonSchema {
  const headerNames = new Set(refusals.flatMap((error) => Object.keys(error.headers)));
  return {
    description: description ?? refusals.map((error) => error.code).join(', '),
    headers: headersObject([...headerNames]),
    content: {
      'application/json': {
        schema: codedSchema(codesOf(refusals)),
        examples: codedExamples(refusals),
      },
    },
  };
}

/** One example per refusal, named by its code. */
function codedExamples(refusals: readonly AppError[]): Record<string, JsonSchema> {
  return Object.fromEntries(refusals.map((error) => [error.code, { value: codedBody(error) }]));
}

/** A 422: the validation body, or (when the operation has behavioural rules) either body. */
export function unprocessableResponse(validation: readonly ValidationIssue[], refusals: readonly AppError[]): JsonSchema {
  const examples = {
    ...(validation.length > 0 ? { validation: { summary: 'Schema validation', value: { detail: validation } } } : {}),
    ...codedExamples(refusals),
  };
  const schemas = [
    ...(validation.length > 0 ? [ref('schemas', 'HTTPValidationError')] : []),
    ...(refusals.length > 0 ? [codedSchema(codesOf(refusals))] : []),
  ];
  const described = [...(validation.length > 0 ? ['Validation error (`detail` is a list)'] : []), ...refusals.map((error) => error.code)];
  return {
    description: described.join(', '),
    headers: headersObject([]),
    content: { 'application/json': { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas }, examples } },
  };
}

/** The headers object of a response: X-Request-Id (every response has one) and `names`. */
export function headersObject(names: readonly string[]): JsonSchema {
  return { 'X-Request-Id': ref('headers', 'X-Request-Id'), ...Object.fromEntries(names.map((name) => [name, ref('headers', name)])) };
}

/** `components.headers`: every header a response of this API may carry. */
export function headerComponents(): Record<string, JsonSchema> {
  return {
    'X-Request-Id': {
      description: "The request's id, as logged: the client's own if it sent a sane one",
      required: true,
      schema: { type: 'string' },
    },
    ...Object.fromEntries(Object.entries(ERROR_HEADERS).map(([name, header]) => [name, { ...header, required: true }])),
    ETag: { description: 'Send it back as If-None-Match to get a 304', required: true, schema: { type: 'string' } },
    // Not required: the last page has none.
    Link: {
      description:
        'Present when more items follow: `<{path}?{query}>; rel="next"`, the request\'s own path and parameters with `after` set to the next page\'s cursor (RFC 8288)',
      schema: {
        type: 'string',
        example: '</api/public/v1/patients?q=mul&limit=50&after=WyJwYXRpZW50cyIsIk3DvGxsZXIiLCJKw7xyZ2VuIiwxXQ>; rel="next"',
      },
    },
    'Content-Disposition': {
      description: "`attachment; filename*=UTF-8''` and the stored file name, percent-encoded (RFC 6266, RFC 8187)",
      required: true,
      schema: { type: 'string' },
    },
    'Content-Length': { description: 'The size of the stored file in bytes', required: true, schema: { type: 'integer', minimum: 1 } },
    'X-Content-Type-Options': { description: 'Always `nosniff`', required: true, schema: { type: 'string', enum: ['nosniff'] } },
  };
}
